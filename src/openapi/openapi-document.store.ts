import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Holds the OpenAPI document that configureApp builds once at start-up. */
@Injectable()
export class OpenApiDocumentStore {
  private document?: OpenAPIObject;

  publish(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject {
    if (!this.document) throw new Error('The OpenAPI document was not built: configureApp builds it at start-up');
    return this.document;
  }
}
