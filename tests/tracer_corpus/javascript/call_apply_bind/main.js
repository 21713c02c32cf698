function greet(greeting) {
  return `${greeting}, ${this.name}`;
}
function viaCall() {
  return greet.call({ name: 'a' }, 'hi');
}
function viaApply() {
  return greet.apply({ name: 'b' }, ['yo']);
}
function viaBind() {
  const g = greet.bind({ name: 'c' });
  return g('hey');
}
viaCall();
viaApply();
viaBind();
