function fine() {
  return 1;
}
function broken( {
  return 2;
}
fine();
