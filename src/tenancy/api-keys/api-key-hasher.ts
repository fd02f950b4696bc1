import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/env';

/** Computes the stored form of a key: HMAC-SHA256 with the configured pepper, hex. */
@Injectable()
export class ApiKeyHasher {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  digest(key: string): string {
    return createHmac('sha256', this.config.apiKeyPepper).update(key).digest('hex');
  }
}
