import { readFileSync } from 'node:fs';
import { renderRouteTable, ROUTE_TABLE_PATH, servedRoutes } from '../../src/route-table';
import { controllerRoutes } from '../support/controller-routes';
import { createTestApp, TestApp } from '../support/create-test-app';

describe('The route table (docs/routes.md)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is the table the app gives now (run `npm run routes:export` after changing a route)', () => {
    expect(readFileSync(ROUTE_TABLE_PATH, 'utf8')).toBe(renderRouteTable(servedRoutes(t.app)));
  });

  it('lists every handler of every controller once, with the access rule it declares', () => {
    const routes = servedRoutes(t.app);
    const listed = routes.map(({ method, path, rule }) => [`${method} ${path}`, rule]);
    const declared = controllerRoutes(t.app).map(({ route, rule }) => [route.replace(/:([A-Za-z0-9_]+)/g, '{$1}'), rule]);
    expect(listed.sort()).toEqual(declared.sort());
    expect(routes.every(({ rule }) => rule !== undefined)).toBe(true);
  });

  it('names the source file and the class.method that serve each route', () => {
    for (const { file, controller, handler } of servedRoutes(t.app)) {
      expect(readFileSync(`${__dirname}/../../${file}`, 'utf8')).toMatch(new RegExp(`export class ${controller}\\b[\\s\\S]*\\b${handler}\\(`));
    }
  });
});
