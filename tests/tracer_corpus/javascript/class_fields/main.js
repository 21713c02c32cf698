class Button {
  label = makeLabel('ok');
  onClick = () => this.handle();
  handle() {
    return 'clicked';
  }
}
function makeLabel(s) {
  return s.toUpperCase();
}
function build() {
  return new Button();
}
build().onClick();
