class Animal:
    def __init__(self, name):
        self.name = name

    def speak(self):
        return f"{self.name} makes {self.sound()}"

    def sound(self):
        return "..."


class Dog(Animal):
    def __init__(self, name):
        super().__init__(name)
        self.tricks = []

    def sound(self):
        return "woof"

    def speak(self):
        return super().speak() + "!"


d = Dog("rex")
print(d.speak())
