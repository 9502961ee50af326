"""Adds and doubles."""


def used(a, b):
    return a + b


def unused(a):
    doubled = a * 2
    return doubled
