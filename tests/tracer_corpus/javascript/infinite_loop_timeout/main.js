function start() {
  return 1;
}
function spin() {
  start();
  while (true) {}
}
spin();
