const { spawnSync } = require('child_process');
const { double } = require('./shared');

function startWorker() {
  const done = spawnSync(process.execPath, ['worker.js', '3'], { encoding: 'utf8' });
  return Number(done.stdout);
}

function startTool() {
  return spawnSync('/bin/true').status;
}

function main() {
  const total = double(1) + startWorker();
  startTool();
  console.log(total);
}

main();
