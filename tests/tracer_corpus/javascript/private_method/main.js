class Vault {
  #secret() {
    return 42;
  }
  #check(x) {
    return x === this.#secret();
  }
  open(x) {
    return this.#check(x);
  }
}
new Vault().open(42);
