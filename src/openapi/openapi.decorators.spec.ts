import { RequireScopes, SignedIn, UsersOnly, VisitorOnly } from '../common/access/access.decorators';
import { ApiAuthEndpoint, ApiUserEndpoint, ApiV1Endpoint, ApiWidgetEndpoint } from './openapi.decorators';

const docs = { operationId: 'op', summary: 'An operation' };

/** The metadata keys of @nestjs/swagger's decorators (its constants are not exported). */
const DECORATORS = { API_SECURITY: 'swagger/apiSecurity', API_RESPONSE: 'swagger/apiResponse', API_PARAMETERS: 'swagger/apiParameters' };

/** What a handler's documentation says of its security and its answers. */
const securityOf = (handler: object): unknown => Reflect.getMetadata(DECORATORS.API_SECURITY, handler);
const statusesOf = (handler: object): string[] => Object.keys(Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {});

describe('the endpoint documentation decorators', () => {
  it("document a route from the access rule declared below them: a key route's scopes", () => {
    class Routes {
      @ApiV1Endpoint(docs)
      @RequireScopes('leads:read')
      list(): void {}

      @ApiV1Endpoint(docs)
      @RequireScopes()
      verify(): void {}
    }
    expect(securityOf(Routes.prototype.list)).toEqual([{ ApiKeyAuth: ['leads:read'] }, { SessionCookie: [], TenantId: [] }]);
    expect(securityOf(Routes.prototype.verify)).toEqual([{ ApiKeyAuth: [] }, { SessionCookie: [], TenantId: [] }]);
  });

  it("document the visitor token of a visitor route, the user security of a users-only one, a session route's cookie", () => {
    class Routes {
      @ApiWidgetEndpoint(docs)
      @VisitorOnly()
      messages(): void {}

      @ApiUserEndpoint(docs)
      @UsersOnly('manager')
      members(): void {}

      @ApiAuthEndpoint(docs)
      @SignedIn()
      me(): void {}
    }
    const headers = Reflect.getMetadata(DECORATORS.API_PARAMETERS, Routes.prototype.messages) as { name: string }[];
    expect(headers.map(({ name }) => name)).toEqual(['X-Visitor-Token']);
    expect(securityOf(Routes.prototype.members)).toEqual([{ SessionCookie: [], TenantId: [] }]);
    expect(securityOf(Routes.prototype.me)).toEqual([{ SessionCookie: [] }]);
    expect(statusesOf(Routes.prototype.me)).toContain('401');
  });

  it('stop the app from loading when the rule is missing, above them, or of another kind', () => {
    expect(() => {
      class Routes {
        @RequireScopes('leads:read')
        @ApiV1Endpoint(docs)
        list(): void {}
      }
      return Routes;
    }).toThrow('Routes.list: @ApiV1Endpoint documents a route whose access rule (apiKey) is declared below it; found no rule.');
    expect(() => {
      class Routes {
        @ApiUserEndpoint(docs)
        @RequireScopes('leads:read')
        list(): void {}
      }
      return Routes;
    }).toThrow('found apiKey');
  });
});
