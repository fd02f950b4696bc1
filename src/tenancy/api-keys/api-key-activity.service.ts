import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../common/errors/app-error';
import { ApiKeyActivityRecorder, utcDay } from './api-key-activity.recorder';
import { ApiKeyActivityRepository } from './api-key-activity.repository';
import { ApiKeysRepository } from './api-keys.repository';

export const ACTIVITY_DAYS = 30;
const DAY_MS = 86_400_000;

export interface KeyActivity {
  lastUsedAt: Date | null;
  /** Oldest first, one entry per UTC day, today last. */
  days: { date: string; requests: number; errors: number }[];
}

/** A key's answers per UTC day: the stored counts and those this instance has not stored yet. */
@Injectable()
export class ApiKeyActivityService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly activity: ApiKeyActivityRepository,
    private readonly recorder: ApiKeyActivityRecorder,
  ) {}

  async keyActivity(tenantId: string, keyId: string, now = new Date()): Promise<KeyActivity> {
    const key = await this.keys.findById(tenantId, keyId);
    if (!key) throw new NotFoundError('API key');
    const dates = Array.from({ length: ACTIVITY_DAYS }, (_, i) => utcDay(new Date(now.getTime() - (ACTIVITY_DAYS - 1 - i) * DAY_MS)));
    const stored = new Map((await this.activity.listDays(tenantId, key.id, dates[0])).map((row) => [row.day, row]));
    const unstored = this.recorder.unstored(key.id);
    return {
      lastUsedAt: key.lastUsedAt,
      days: dates.map((date) => ({
        date,
        requests: (stored.get(date)?.requests ?? 0) + (unstored.get(date)?.requests ?? 0),
        errors: (stored.get(date)?.errors ?? 0) + (unstored.get(date)?.errors ?? 0),
      })),
    };
  }
}
