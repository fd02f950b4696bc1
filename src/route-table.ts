import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { permissionRefusal } from './accounts/permission.guard';
import { ROLE_SCOPES, ROLES } from './accounts/roles';
import { Access, type AccessRule } from './common/access/access.decorators';
import type { UserPrincipal } from './common/http/request-context';
import { PaidFeature } from './tenancy/plan.guard';

/** The repository's root: this file is src/route-table.ts, or dist/route-table.js once built. */
const ROOT = path.resolve(__dirname, '..');

/** docs/routes.md, which `npm run routes:export` writes. */
export const ROUTE_TABLE_PATH = path.join(ROOT, 'docs', 'routes.md');

export interface ServedRoute {
  method: string;
  /** The URL's path, its parameters in braces as in openapi.json: `/api/v1/bots/{id}`. */
  path: string;
  rule: AccessRule | undefined;
  /** The capability the plan grants (@PaidFeature), when the route is one. */
  paidFeature: string | undefined;
  controller: string;
  handler: string;
  /** The controller's source file, from the repository's root. */
  file: string;
}

/** Every route of the app's controllers, with the access rule Nest resolves for it (method first, then class). */
export function servedRoutes(app: INestApplication): ServedRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const reflector = new Reflector();
  const files = controllerFiles();
  const routes: ServedRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: unknown[]) => object) | undefined;
    if (!controller) continue;
    const prefixes = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const handler of scanner.getAllMethodNames(controller.prototype)) {
      const method = (controller.prototype as Record<string, (...args: unknown[]) => unknown>)[handler];
      const paths = Reflect.getMetadata(PATH_METADATA, method) as string | string[] | undefined;
      if (paths === undefined) continue;
      const rule = reflector.getAllAndOverride(Access, [method, controller]);
      const paidFeature = reflector.getAllAndOverride(PaidFeature, [method, controller]);
      const file = files.get(controller.name);
      if (!file) throw new Error(`No source file under src/ declares the controller ${controller.name}`);
      for (const prefix of prefixes) {
        for (const routePath of ([] as string[]).concat(paths)) {
          routes.push({
            method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, method) as RequestMethod],
            path: urlPath(prefix, routePath),
            rule,
            paidFeature,
            controller: controller.name,
            handler,
            file,
          });
        }
      }
    }
  }
  // By code point, not by locale: the file is the same wherever it is written.
  return routes.sort((a, b) => (a.path === b.path ? METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method) : a.path < b.path ? -1 : 1));
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'ALL'];

function urlPath(...parts: string[]): string {
  const joined = parts.map((part) => part.replace(/^\/+|\/+$/g, '')).filter(Boolean);
  return `/${joined.join('/')}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Which file declares each controller class: `export class BotsController` in src/bots/bots.controller.ts. */
function controllerFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory() && entry.name !== 'generated') visit(full);
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        for (const [, name] of readFileSync(full, 'utf8').matchAll(/^export class (\w+Controller)\b/gm)) {
          files.set(name, path.relative(ROOT, full).split(path.sep).join('/'));
        }
      }
    }
  };
  visit(path.join(ROOT, 'src'));
  return files;
}

const code = (text: string): string => `\`${text}\``;

/** The roles whose members may call a route of this rule: the permission check's own answer for each. */
function rolesAllowed(rule: AccessRule): string[] {
  return ROLES.filter((role) => {
    const member: UserPrincipal = { kind: 'user', tenant: { id: '', name: '', slug: '', plan: 'pro' }, scopes: ROLE_SCOPES[role], user: { id: '', role } };
    return !permissionRefusal(rule, member);
  });
}

/** The rule as the route declares it: its decorator. */
function declaration(rule: AccessRule | undefined): string {
  if (!rule) return 'none (refused)';
  switch (rule.kind) {
    case 'apiKey':
      return code(`@RequireScopes(${rule.scopes.join(', ')})`);
    case 'tenantUser':
      return code(`@UsersOnly(${[rule.role, ...(rule.scopes ?? [])].join(', ')})`);
    default:
      return code(`@${DECORATOR_OF[rule.kind]}()`);
  }
}

const DECORATOR_OF: Record<Exclude<AccessRule['kind'], 'apiKey' | 'tenantUser'>, string> = {
  public: 'Public',
  admin: 'AdminOnly',
  widget: 'WidgetOnly',
  visitor: 'VisitorOnly',
  session: 'SignedIn',
  signIn: 'SignInStep',
};

/** Who may call a route of this rule, in words. */
function callers(rule: AccessRule | undefined): string {
  const members = (allowed: AccessRule) => `members: ${rolesAllowed(allowed).join(', ')}`;
  switch (rule?.kind) {
    case undefined:
      return 'nobody';
    case 'public':
      return 'anyone';
    case 'admin':
      return 'the operator (`ADMIN_API_TOKEN`)';
    case 'apiKey':
      return `${rule.scopes.length ? `secret keys with ${rule.scopes.map(code).join(', ')}` : 'any key, public keys too'}; ${members(rule)}`;
    case 'widget':
      return 'public keys (the widget)';
    case 'visitor':
      return 'public keys with a visitor token';
    case 'tenantUser':
      return `${members(rule)}; no key`;
    case 'session':
      return 'a signed-in user';
    case 'signIn':
      return "anyone, from the service's own origin";
  }
}

/** The route table as docs/routes.md holds it. */
export function renderRouteTable(routes: readonly ServedRoute[]): string {
  const lines = [
    '# Routes',
    '',
    `The ${routes.length} routes the service serves: each one's method and path, the access rule it declares, who may call it, and the`,
    "handler that serves it. Generated from the running app's controllers by `npm run routes:export`",
    '(`src/route-table.ts`); do not edit it by hand: `test/e2e/route-table.e2e-spec.ts` fails while it is not',
    'what the app serves. Back to the [README](../README.md); the rules themselves are in',
    '[layout.md](layout.md#extension-points) (the kinds of caller) and [accounts.md](accounts.md) (roles).',
    '',
    'Members are the signed-in users of the tenant named in `X-Tenant-Id`, by role; "Pro plan" marks a',
    'capability a Free tenant does not have, for members too (keys need Pro or higher on every `/api/v1` route',
    'but the widget).',
  ];
  for (const [title, group] of groups(routes)) {
    lines.push('', `## ${title}`, '', '| Method | Path | Rule | Who may call it | Served by |', '| --- | --- | --- | --- | --- |');
    for (const route of group) {
      const who = route.paidFeature ? `${callers(route.rule)}; Pro plan` : callers(route.rule);
      const servedBy = `[${route.file}](../${route.file}) ${code(`${route.controller}.${route.handler}`)}`;
      lines.push(`| ${route.method} | ${code(route.path)} | ${declaration(route.rule)} | ${who} | ${servedBy} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The parts of the service, in the README's order, each with the start of its paths. */
const GROUPS: readonly (readonly [title: string, prefix: string])[] = [
  ['The public API (`/api/v1`)', '/api/v1/'],
  ['The widget API (`/api/v1/widget`)', '/api/v1/widget/'],
  ["Dashboard users' accounts (`/auth/v1`)", '/auth/v1/'],
  ['The admin API (`/admin/v1`)', '/admin/v1/'],
  ['Everything else', '/'],
];

/** The routes by the part of the service they belong to: the longest prefix of theirs. */
function groups(routes: readonly ServedRoute[]): [string, ServedRoute[]][] {
  const groupOf = (url: string) => GROUPS.filter(([, prefix]) => url.startsWith(prefix)).sort(([, a], [, b]) => b.length - a.length)[0][0];
  return GROUPS.map(([title]) => [title, routes.filter((route) => groupOf(route.path) === title)] as [string, ServedRoute[]]).filter(
    ([, group]) => group.length > 0,
  );
}
