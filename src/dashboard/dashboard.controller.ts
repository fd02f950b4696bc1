import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { ApiPublicEndpoint } from '../openapi/openapi.decorators';
import { DASHBOARD_CONTENT_SECURITY_POLICY, DashboardFiles } from './dashboard-files';

const ASSETS = 'assets/';

/**
 * The dashboard, a single-page app: its hashed scripts and styles under /dashboard/assets/, and
 * its page for /dashboard and every deep link under it (the app routes in the browser). Public:
 * the page itself holds no data; it calls /auth/v1 and /api/v1 with the user's session.
 */
@Controller()
@Public()
@ApiTags('Dashboard')
export class DashboardController {
  private readonly files = new DashboardFiles();

  @Get('dashboard')
  @ApiPublicEndpoint({
    operationId: 'getDashboard',
    summary: 'The dashboard (HTML); every path under /dashboard/ answers the same page',
    content: { 'text/html': { schema: { type: 'string' } } },
    errors: [ErrorCode.HTTPS_REQUIRED, ErrorCode.NOT_FOUND],
  })
  page(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.sendPage(request, response);
  }

  @Get('dashboard/*path')
  @ApiParam({ name: 'path', description: 'The rest of the path, slashes included (`bots/<id>`, `assets/index-<hash>.js`).', schema: { type: 'string' } })
  @ApiPublicEndpoint({
    operationId: 'getDashboardPath',
    summary: 'A script or style sheet of the dashboard (`assets/<name>`), or its page for a deep link',
    description:
      'Paths under `assets/` are the built files (404 for any other name), cacheable for a year: their names carry a content hash. Every other path answers the page of GET /dashboard.',
    content: { 'text/html': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
    errors: [ErrorCode.HTTPS_REQUIRED, ErrorCode.NOT_FOUND],
  })
  deepLink(@Param('path') path: string[] | string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const relative = ([] as string[]).concat(path).join('/');
    if (!relative.startsWith(ASSETS)) return this.sendPage(request, response);
    const asset = this.files.asset(relative.slice(ASSETS.length));
    if (!asset) throw new NotFoundError('File');
    response.setHeader('Content-Type', asset.contentType);
    // The names carry a content hash: a new build has new names.
    response.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    return asset.body.send(request, response);
  }

  private sendPage(request: Request, response: Response): Promise<void> {
    if (!this.files.indexHtml) throw new NotFoundError('Page');
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    response.setHeader('Content-Security-Policy', DASHBOARD_CONTENT_SECURITY_POLICY);
    return this.files.indexHtml.send(request, response);
  }
}
