import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { Access, AccessRule } from '../../src/common/access/access.decorators';

export interface ControllerRoute {
  /** "METHOD /express/:path". */
  route: string;
  rule: AccessRule | undefined;
}

export function joinPath(...parts: string[]): string {
  return `/${parts.map((part) => part.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
}

/** Every handler of every controller in the app, with the access rule Nest resolves for it. */
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
      for (const prefix of prefixes) {
        for (const path of ([] as string[]).concat(paths)) routes.push({ route: `${method} ${joinPath(prefix, path)}`, rule });
      }
    }
  }
  return routes;
}
