from shop import Cart


def main():
    cart = Cart()
    cart.add(10)
    print(cart.total())


main()
