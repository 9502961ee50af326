"""A failing dict comparison: the report shows a structural diff of expected/actual."""
import sys

sys.dont_write_bytecode = True  # keep __pycache__ out of the suite
from taplib import Tap  # noqa: E402


def parse_user(line):
    name, age, *roles = line.split(":")
    return {"name": name, "age": age, "roles": roles}  # bug: age stays a string


t = Tap(2)
t.equal(parse_user("ada:36:admin")["name"], "ada", "reads the name")
t.equal(
    parse_user("ada:36:admin:dev"),
    {"name": "ada", "age": 36, "roles": ["admin", "dev"]},
    "parses a user record",
)
t.done()
