import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { Access, AccessRule } from '../../src/common/access/access.decorators';

export interface ControllerRoute {
  /** "METHOD /express/:path". */
  route: string;
  rule: AccessRule | undefined;
  /** The handler reads the request body (`@Body()`, `@RawBody()`). */
  body: boolean;
  /** The handler reads the query string (`@Query()`). */
  query: boolean;
}

export function joinPath(...parts: string[]): string {
  return `/${parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

/** Every handler of every controller in the app, with the access rule Nest resolves for it and the request parts it reads. */
export function controllerRoutes(app: INestApplication): ControllerRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const reflector = new Reflector();
  const routes: ControllerRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: unknown[]) => object) | undefined;
    if (!controller) continue;
    const prefixes = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const methodName of scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const rule = reflector.getAllAndOverride<AccessRule | undefined>(Access, [handler, controller]);
      const params = paramTypes(controller, methodName);
      const body = params.has(RouteParamtypes.BODY) || params.has(RouteParamtypes.RAW_BODY);
      const query = params.has(RouteParamtypes.QUERY);
      for (const prefix of prefixes) {
        for (const path of ([] as string[]).concat(paths)) routes.push({ route: `${method} ${joinPath(prefix, path)}`, rule, body, query });
      }
    }
  }
  return routes;
}

/** The built-in parameter decorators of a handler; their metadata keys are "<RouteParamtypes>:<index>". */
function paramTypes(controller: object, methodName: string): Set<RouteParamtypes> {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<string, unknown>;
  return new Set(
    Object.keys(args)
      .map((key) => Number(key.split(':')[0]))
      .filter((type) => Number.isInteger(type)),
  );
}

/**
 * The routes the Express router serves ("METHOD /express/:path"; `_ALL` for an all-methods
 * route), leaving out the mounts of middleware configured through Nest's MiddlewareConsumer,
 * which Nest registers as routes too.
 */
export function servedExpressRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } };
  const middlewarePaths = middlewareMounts(app);
  return express.router.stack.flatMap(({ route }) => {
    if (!route || middlewarePaths.has(withoutOptionalGroups(route.path))) return [];
    return Object.keys(route.methods)
      .filter((method) => route.methods[method])
      .map((method) => `${method.toUpperCase()} ${route.path}`);
  });
}

/** Nest mounts a middleware path such as `*path` both as `/*path` and as `/{*path}`. */
function withoutOptionalGroups(path: string): string {
  return path.replace(/[{}]/g, '');
}

function middlewareMounts(app: INestApplication): Set<string> {
  const container = (app as unknown as { middlewareContainer: { getConfigurations(): Map<string, Set<{ forRoutes: unknown[] }>> } }).middlewareContainer;
  const paths = new Set<string>();
  for (const configs of container.getConfigurations().values()) {
    for (const config of configs) {
      for (const target of config.forRoutes) {
        if (typeof target === 'string') paths.add(withoutOptionalGroups(joinPath(target)));
        else if (target && typeof target === 'object' && 'path' in target) paths.add(withoutOptionalGroups(joinPath(String(target.path))));
      }
    }
  }
  return paths;
}
