import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { CompressedBody } from '../common/http/compressed-body';
import { NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { ApiPublicEndpoint } from '../openapi/openapi.decorators';
import { WidgetDemoQueryDto } from './dto/widget.dto';

/** The compiled widget script (`npm run build`: web/widget -> dist/web/widget), read once at start. */
function readWidgetScript(): CompressedBody | undefined {
  const candidates = [path.join(__dirname, '..', 'web', 'widget', 'widget.js'), path.join(process.cwd(), 'dist', 'web', 'widget', 'widget.js')];
  const found = candidates.find((file) => existsSync(file));
  return found ? new CompressedBody(readFileSync(found)) : undefined;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** The widget's script for tenants' pages, and a demo page that embeds it (not in production). */
@Controller()
@Public()
@ApiTags('Widget')
export class WidgetAssetsController {
  private readonly script = readWidgetScript();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('widget.js')
  @ApiPublicEndpoint({
    operationId: 'getWidgetScript',
    summary: 'The chat widget script to embed',
    description:
      'Embed with `<script src=".../widget.js" data-bot-id="<botId>" data-key="svc_pk_..." async></script>`. Cacheable for 5 minutes; loadable from any site; a query string (`?v=2`) is ignored.',
    content: { 'application/javascript': { schema: { type: 'string' } } },
    errors: [ErrorCode.HTTPS_REQUIRED, ErrorCode.NOT_FOUND],
  })
  // No query check: pages add ?v=2 to a script URL to refresh their caches.
  widgetScript(@Req() request: Request, @Res() response: Response): Promise<void> {
    if (!this.script) throw new NotFoundError('File');
    response.setHeader('Content-Type', 'application/javascript; charset=utf-8');
    response.setHeader('Cache-Control', 'public, max-age=300');
    // Other sites load it with <script>: helmet's same-origin resource policy would block that.
    response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    return this.script.send(request, response);
  }

  @Get('widget/demo')
  @ApiPublicEndpoint({
    operationId: 'getWidgetDemo',
    summary: 'A page that embeds the widget (not in production)',
    content: { 'text/html': { schema: { type: 'string' } } },
    errors: [ErrorCode.HTTPS_REQUIRED, ErrorCode.NOT_FOUND, ErrorCode.VALIDATION_ERROR],
  })
  demo(@Query() query: WidgetDemoQueryDto, @Res() response: Response): void {
    if (this.config.production) throw new NotFoundError('Page');
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    response.setHeader('Content-Security-Policy', "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:");
    response.send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Widget demo</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; margin: 40px">
<h1>Widget demo</h1>
<p>This page embeds the chat widget of bot <code>${escapeHtml(query.botId)}</code> as a tenant's site would.</p>
<script src="/widget.js" data-bot-id="${escapeHtml(query.botId)}" data-key="${escapeHtml(query.key)}" async></script>
</body>
</html>`);
  }
}
