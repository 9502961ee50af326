def compute():
    return "hello world"


def test_dict_keys():
    assert {1: "a"} == {"1": "a"}


def test_tuple_list():
    assert (1, 2) == [1, 2]


def test_literal_left():
    assert "hello there" == compute()


def test_noted():
    # A note on the failure (PEP 678), as hypothesis writes its falsifying example.
    try:
        assert (1, 2) == [1, 2]
    except AssertionError as e:
        e.add_note("Failing test case: test_noted(\n    container=tuple,\n)")
        raise
