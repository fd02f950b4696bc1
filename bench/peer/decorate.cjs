// Decorators in plain JavaScript, applied as tsc compiles them. tsc turns `@Get() list(...)` into
// `__decorate([Get(), __param(0, Query()), __metadata('design:paramtypes', [Dto])], Proto, 'list', desc)`,
// and its __decorate calls reflect-metadata's Reflect.decorate: calling that by hand gives Nest,
// class-validator and class-transformer exactly the metadata the TypeScript version would, with
// no compile step for the benchmark to run (or to forget) before starting the peer.
require('reflect-metadata');

/** `@A() @B() class X {}` */
function decorateClass(target, ...decorators) {
  return Reflect.decorate(decorators, target);
}

/** `@A() method() {}` on target.prototype. */
function decorateMethod(target, name, ...decorators) {
  const descriptor = Reflect.decorate(decorators, target.prototype, name, Object.getOwnPropertyDescriptor(target.prototype, name));
  Object.defineProperty(target.prototype, name, descriptor);
}

/** `@A() name: Type;` with the design:type emitDecoratorMetadata adds. */
function decorateProperty(target, name, type, ...decorators) {
  Reflect.decorate([...decorators, Reflect.metadata('design:type', type)], target.prototype, name);
}

/** tsc's __param: a parameter decorator (`@Body()`) at position `index`. */
function param(index, decorator) {
  return (target, key) => decorator(target, key, index);
}

/** What emitDecoratorMetadata records for a constructor's or a method's parameter types. */
function paramTypes(...types) {
  return Reflect.metadata('design:paramtypes', types);
}

module.exports = { decorateClass, decorateMethod, decorateProperty, param, paramTypes };
