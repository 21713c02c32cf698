from dataclasses import dataclass, field


def tag():
    return "new"


@dataclass
class Item:
    name: str
    label: str = field(default_factory=tag)

    def __post_init__(self):
        self.name = clean(self.name)


def clean(text):
    return text.strip()


item = Item(" pen ")
print(item)
