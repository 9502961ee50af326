def compute():
    return "hello world"


def test_dict_keys():
    assert {1: "a"} == {"1": "a"}


def test_tuple_list():
    assert (1, 2) == [1, 2]


def test_literal_left():
    assert "hello there" == compute()
