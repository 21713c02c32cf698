const result = (function () {
  return helper();
})();
function helper() {
  return 1;
}
(() => helper())();
