import type { ExecutionContext, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AdminOnly, Public, RequireScopes } from '../../common/access/access.decorators';
import { httpContext, thrownBy } from '../../common/testing/guard-testing';
import { AppError } from '../../common/errors/app-error';
import type { ApiPrincipal, AppRequest } from '../../common/http/request-context';
import { ALL_SCOPES, Scope } from '../../common/access/scopes';
import { ScopesGuard } from './scopes.guard';

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

describe('ScopesGuard', () => {
  const guard = new ScopesGuard(new Reflector());
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
