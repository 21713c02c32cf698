def register(name):
    return name.upper()


def default_size():
    return 3


class Config:
    NAME = register("config")
    SIZES = [default_size() for _ in range(2)]  # noqa: RUF012

    def method(self):
        return self.NAME


def build():
    class Local:
        VALUE = register("local")
    return Local


print(Config().method(), build().VALUE)
