import { Controller, Get, Header, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiParam, ApiTags, type OpenAPIObject } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/access/access.decorators';
import { NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { DOCS_ASSET_NAMES, DOCS_CONTENT_SECURITY_POLICY, DOCS_PAGE, docsAsset } from './docs-page';
import { ApiPublicEndpoint } from './openapi.decorators';
import { OpenApiDocumentStore } from './openapi-document.store';

/** The API description and its reference page: public, and under the HTTPS rule like the API. */
@Controller()
@Public()
@ApiTags('Operations')
export class OpenApiController {
  constructor(private readonly store: OpenApiDocumentStore) {}

  @Get('api/v1/openapi.json')
  @ApiPublicEndpoint({
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string', enum: ['3.1.0'] }, info: { type: 'object' }, paths: { type: 'object' } },
        },
      },
    },
    errors: [ErrorCode.HTTPS_REQUIRED],
  })
  document(): OpenAPIObject {
    return this.store.get();
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY)
  @ApiPublicEndpoint({
    operationId: 'getApiReference',
    summary: 'Interactive API reference (HTML)',
    content: { 'text/html': { schema: { type: 'string' } } },
    errors: [ErrorCode.HTTPS_REQUIRED],
  })
  page(): string {
    return DOCS_PAGE;
  }

  @Get('docs/assets/:file')
  @ApiParam({ name: 'file', schema: { type: 'string', enum: DOCS_ASSET_NAMES } })
  @ApiPublicEndpoint({
    operationId: 'getApiReferenceAsset',
    summary: 'A script, style sheet or image of the API reference page',
    content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } }, 'image/png': {} },
    errors: [ErrorCode.HTTPS_REQUIRED, ErrorCode.NOT_FOUND],
  })
  asset(@Param('file') file: string, @Res({ passthrough: true }) response: Response): StreamableFile {
    const asset = docsAsset(file);
    if (!asset) throw new NotFoundError('File');
    response.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    return new StreamableFile(asset.body, { type: asset.contentType });
  }
}
