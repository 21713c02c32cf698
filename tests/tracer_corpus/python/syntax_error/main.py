import helper


def ok():
    return helper.value()


ok()
