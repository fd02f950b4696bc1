import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { accessRuleOf } from '../access/access.decorators';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ValidationError } from '../errors/app-error';
import { inspectInput } from './input-guard';

interface DeclaredInput {
  query: boolean;
  body: boolean;
}

// Per handler, read once from its parameter decorators.
const declared = new WeakMap<object, DeclaredInput>();

/**
 * Input a handler does not declare is refused: a query string on a route without `@Query()`, a
 * body field on one without `@Body()`, each named as an unknown field (400), as a DTO's whitelist
 * names them. The rule comes from the handler's own parameters, so a route takes no empty DTO to
 * say "nothing" (the NoQueryDto and EmptyBodyDto every such route used to carry). The last global
 * guard, after the body is read (JsonBodyGuard). Public routes (probes, documents, the widget's
 * script) are left alone: a page may load `/widget.js?v=3` to bust a cache.
 */
@Injectable()
export class UndeclaredInputGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const reads = declaredInput(context.getClass(), context.getHandler());
    if ((reads.query && reads.body) || accessRuleOf(this.reflector, context)?.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<{ query?: unknown; body?: unknown }>();
    if (!reads.query) refuseAny(request.query, 'query');
    if (!reads.body) refuseAny(request.body, 'body');
    return true;
  }
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- Nest hands the handler as a Function
function declaredInput(controller: object, handler: Function): DeclaredInput {
  let input = declared.get(handler);
  if (!input) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, unknown>;
    const types = new Set(Object.keys(args).map((key) => Number(key.split(':')[0])));
    input = { query: types.has(RouteParamtypes.QUERY), body: types.has(RouteParamtypes.BODY) || types.has(RouteParamtypes.RAW_BODY) };
    declared.set(handler, input);
  }
  return input;
}

function refuseAny(value: unknown, part: 'query' | 'body'): void {
  if (value === null || typeof value !== 'object' || Object.keys(value).length === 0) return;
  const problems = inspectInput(value, '');
  if (problems.length) throw new ValidationError(problems.map((problem) => ({ ...problem, field: problem.field || part })));
  throw new ValidationError(Object.keys(value).map((field) => ({ field, message: 'is not an allowed field' })));
}
