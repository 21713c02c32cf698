#!/usr/bin/env node
'use strict';
function strictness() {
  'use strict';
  return this === undefined;
}
function check() {
  if (!strictness()) throw new Error('directive lost');
  return true;
}
check();
