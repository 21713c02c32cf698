const config = require('./config');
function main() {
  return config.get('a');
}
main();
