class Singleton:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self):
        self.ready = True


def make():
    return Singleton()


a = make()
b = make()
print(a is b)
