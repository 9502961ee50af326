def total(*xs):
    return sum(xs)
