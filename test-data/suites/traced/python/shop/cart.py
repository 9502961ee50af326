from shop.price import total


def cart_total(items):
    return total(*items)
