'use strict';
function basePlain() { return 1; }
function basePrivate() { return 2; }
function computedKey() { return 'dyn'; }
function computedValue() { return 3; }
function bareField() { return 4; }
function derivedField() { return 5; }
function implicitDerivedField() { return 6; }
function rootField() { return 7; }
function middleField() { return 8; }
function leafField() { return 9; }
function exprField() { return 10; }
function anonField() { return 11; }
function arrowBody() { return 12; }
function staticField() { return 13; }
function staticBlock() { return 14; }
function failing() { throw new Error('no'); }
function afterFailure() { return 15; }
function arrowSuperField() { return 16; }

class WithCtor {
  plain = basePlain();
  #secret = basePrivate();
  [computedKey()] = computedValue();
  later = () => arrowBody();
  constructor() {
    this.ready = this.#secret > 0;
  }
}

class NoCtor {
  bare = bareField();
}

class Derived extends NoCtor {
  extra = derivedField();
  constructor() {
    super();
  }
}

class ArrowSuper extends NoCtor {
  own = arrowSuperField();
  constructor() {
    const init = () => super();
    init();
  }
}

class DerivedNoCtor extends WithCtor {
  more = implicitDerivedField();
}

class Root { r = rootField(); }
class Middle extends Root {
  m = middleField();
  constructor() { super(); }
}
class Leaf extends Middle { l = leafField(); }

const Expr = class {
  e = exprField();
  constructor() {}
};
const Anon = class { a = anonField(); };

class Fragile {
  bad = failing();
  constructor() {}
}

function defineStatics() {
  class Statics {
    static s = staticField();
    static {
      staticBlock();
    }
  }
  return Statics;
}

function makeAll() {
  const made = [new WithCtor(), new NoCtor(), new Derived(), new ArrowSuper(), new DerivedNoCtor(), new Leaf(), new Expr(), new Anon()];
  try {
    new Fragile();
  } catch (error) {
    afterFailure();
  }
  return made[0];
}

function useLater(object) {
  return object.later();
}

useLater(makeAll());
defineStatics();
