import type { ExecutionContext, Type } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';

/** An HTTP execution context for a guard under test: this request, this controller's handler. */
export function httpContext(controller: Type, handler: (...args: never[]) => unknown, request: object): ExecutionContext {
  return new ExecutionContextHost([request, {}, () => undefined], controller, handler);
}

/** The error a synchronous guard throws; fails the test when it lets the request through. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the guard to throw');
}
