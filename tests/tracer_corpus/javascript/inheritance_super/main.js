class Animal {
  constructor(name) {
    this.name = name;
  }
  speak() {
    return `${this.name} makes a sound`;
  }
}
class Dog extends Animal {
  constructor(name) {
    super(name);
    this.kind = 'dog';
  }
  speak() {
    return super.speak() + ' (woof)';
  }
}
const d = new Dog('rex');
console.log(d.speak());
