class Temp:
    def __init__(self, celsius):
        self.celsius = celsius

    @staticmethod
    def to_celsius(f):
        return (f - 32) * 5 / 9

    @classmethod
    def from_fahrenheit(cls, f):
        return cls(cls.to_celsius(f))


t = Temp.from_fahrenheit(212)
print(t.celsius, Temp.to_celsius(32))
