import type { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AdminOnly, Public, RequireScopes, type AccessRule } from '../common/access/access.decorators';
import { httpContext, thrownBy } from '../common/testing/guard-testing';
import { AppError } from '../common/errors/app-error';
import type { ApiPrincipal, AppRequest, UserPrincipal } from '../common/http/request-context';
import type { Role } from '../generated/prisma/enums';
import { ALL_SCOPES, Scope } from '../common/access/scopes';
import { PermissionGuard, permissionRefusal } from './permission.guard';
import { ROLE_SCOPES } from './roles';

class RoutesController {
  @RequireScopes() verify(): void {}
  @RequireScopes(Scope.BotsRead) listBots(): void {}
  @RequireScopes(Scope.LeadsRead, Scope.LeadsWrite) syncLeads(): void {}
  @Public() health(): void {}
  @AdminOnly() admin(): void {}
  undeclared(): void {}
}

@RequireScopes(Scope.ConversationsRead)
class ConversationsController {
  list(): void {}
}

const key = (type: 'secret' | 'public', scopes: readonly string[]): ApiPrincipal => ({
  kind: 'apiKey',
  scopes,
  tenant: { id: '0190b6a0-0000-7000-8000-000000000001', name: 'Acme', slug: 'acme', plan: 'pro' },
  apiKey: { id: '0190b6a0-0000-7000-8000-000000000002', type, scopes },
});

function contextFor(controller: Type, handler: (...args: never[]) => unknown, principal?: ApiPrincipal): ExecutionContext {
  return httpContext(controller, handler, { principal } as AppRequest);
}

describe('PermissionGuard, for keys on key routes (formerly ScopesGuard)', () => {
  const guard = new PermissionGuard(new Reflector());
  const routes = RoutesController.prototype;

  it('lets a secret key with the required scope through', () => {
    expect(guard.canActivate(contextFor(RoutesController, routes.listBots, key('secret', ['bots:read'])))).toBe(true);
    expect(guard.canActivate(contextFor(RoutesController, routes.listBots, key('secret', ALL_SCOPES)))).toBe(true);
  });

  it('refuses a secret key without the required scope with 403 INSUFFICIENT_SCOPE naming the scope', () => {
    const error = thrownBy(() => guard.canActivate(contextFor(RoutesController, routes.listBots, key('secret', ['leads:read', 'leads:write']))));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, message: 'This endpoint requires the scope bots:read.' });
  });

  it('refuses a key with no scopes at all', () => {
    expect(thrownBy(() => guard.canActivate(contextFor(RoutesController, routes.listBots, key('secret', []))))).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
    });
  });

  it('needs every listed scope and names only the missing ones', () => {
    expect(guard.canActivate(contextFor(RoutesController, routes.syncLeads, key('secret', ['leads:write', 'leads:read'])))).toBe(true);
    const error = thrownBy(() => guard.canActivate(contextFor(RoutesController, routes.syncLeads, key('secret', ['leads:read', 'bots:read']))));
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, message: 'This endpoint requires the scope leads:write.' });
  });

  it('does not treat a scope as a prefix or pattern', () => {
    expect(thrownBy(() => guard.canActivate(contextFor(RoutesController, routes.listBots, key('secret', ['bots:*', 'bots', 'BOTS:READ']))))).toMatchObject({
      status: 403,
    });
  });

  it('refuses a public key on any scoped route, whatever scopes it carries', () => {
    const error = thrownBy(() => guard.canActivate(contextFor(RoutesController, routes.listBots, key('public', ALL_SCOPES))));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    expect((error as AppError).message).toMatch(/public key/i);
  });

  it('lets any valid key, public or secret, call a route that needs no scope', () => {
    expect(guard.canActivate(contextFor(RoutesController, routes.verify, key('public', [])))).toBe(true);
    expect(guard.canActivate(contextFor(RoutesController, routes.verify, key('secret', [])))).toBe(true);
  });

  it('applies a class-level rule to its methods', () => {
    const list = ConversationsController.prototype.list;
    expect(guard.canActivate(contextFor(ConversationsController, list, key('secret', ['conversations:read'])))).toBe(true);
    expect(thrownBy(() => guard.canActivate(contextFor(ConversationsController, list, key('secret', ['bots:read']))))).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: 'This endpoint requires the scope conversations:read.',
    });
  });

  it.each([
    ['public', routes.health],
    ['admin', routes.admin],
    ['undeclared', routes.undeclared],
  ])('leaves %s routes to the other guards', (_, handler) => {
    expect(guard.canActivate(contextFor(RoutesController, handler))).toBe(true);
    expect(guard.canActivate(contextFor(RoutesController, handler, key('public', [])))).toBe(true);
  });
});

describe('permissionRefusal, for every caller the checks before have established', () => {
  const tenant = { id: '0190b6a0-0000-7000-8000-000000000001', name: 'Acme', slug: 'acme', plan: 'pro' as const };
  const member = (role: Role): UserPrincipal => ({
    kind: 'user',
    tenant,
    scopes: ROLE_SCOPES[role],
    user: { id: '0190b6a0-0000-7000-8000-000000000003', role },
  });
  const secretKey = key('secret', ALL_SCOPES);
  const publicKey = key('public', []);

  it("compares a member's role's scopes (ROLE_SCOPES) with a key route's, answering 403 INSUFFICIENT_ROLE", () => {
    expect(permissionRefusal({ kind: 'apiKey', scopes: [Scope.LeadsWrite] }, member('agent'))).toBeUndefined();
    expect(permissionRefusal({ kind: 'apiKey', scopes: [Scope.LeadsWrite] }, member('viewer'))).toMatchObject({
      code: 'INSUFFICIENT_ROLE',
      message: 'Your role (viewer) does not allow this: it needs leads:write.',
    });
    expect(permissionRefusal({ kind: 'apiKey', scopes: [] }, member('viewer'))).toBeUndefined();
  });

  it('lets owners and admins, and only them, call a users-only route for managers', () => {
    const managers: AccessRule = { kind: 'tenantUser', role: 'manager' };
    expect(permissionRefusal(managers, member('owner'))).toBeUndefined();
    expect(permissionRefusal(managers, member('admin'))).toBeUndefined();
    expect(permissionRefusal(managers, member('agent'))).toMatchObject({
      code: 'INSUFFICIENT_ROLE',
      message: 'Only owners and admins may do this; your role is agent.',
    });
    expect(permissionRefusal({ kind: 'tenantUser', role: 'member' }, member('viewer'))).toBeUndefined();
  });

  it("checks a users-only route's scopes before its role", () => {
    const assign: AccessRule = { kind: 'tenantUser', role: 'member', scopes: [Scope.ConversationsWrite] };
    expect(permissionRefusal(assign, member('agent'))).toBeUndefined();
    expect(permissionRefusal(assign, member('viewer'))).toMatchObject({ code: 'INSUFFICIENT_ROLE', message: expect.stringContaining('conversations:write') });
  });

  it('refuses any key, whatever its scopes, on a users-only route with 403 INSUFFICIENT_SCOPE', () => {
    expect(permissionRefusal({ kind: 'tenantUser', role: 'member' }, secretKey)).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringMatching(/API keys cannot call it/),
    });
  });

  it('takes only public keys on widget and visitor routes', () => {
    for (const rule of [{ kind: 'widget' }, { kind: 'visitor' }] as AccessRule[]) {
      expect(permissionRefusal(rule, publicKey)).toBeUndefined();
      expect(permissionRefusal(rule, secretKey)).toMatchObject({ code: 'INSUFFICIENT_SCOPE', message: expect.stringMatching(/public key \(svc_pk_\)/) });
    }
  });

  it('has nothing to say where no key or member is involved', () => {
    for (const rule of [{ kind: 'public' }, { kind: 'admin' }, { kind: 'session' }, { kind: 'signIn' }, undefined] as (AccessRule | undefined)[]) {
      expect(permissionRefusal(rule, undefined)).toBeUndefined();
      expect(permissionRefusal(rule, member('viewer'))).toBeUndefined();
    }
  });
});
