import { ConfigError, loadConfig } from './env';

const disabled = (env: Record<string, string>) => [...loadConfig(env).jobs.disabled].sort();

describe('JOBS_DISABLED and the *_WORKER switches', () => {
  it('runs every kind by default', () => {
    expect(disabled({})).toEqual([]);
  });

  it('turns off the kinds JOBS_DISABLED names, spaces allowed', () => {
    expect(disabled({ JOBS_DISABLED: 'deliveries, retention' })).toEqual(['deliveries', 'retention']);
  });

  it('honours the older switches: false turns their kinds off, true leaves JOBS_DISABLED the say', () => {
    expect(disabled({ WEBHOOK_WORKER: 'false' })).toEqual(['deliveries']);
    expect(disabled({ PRIVACY_WORKER: 'false' })).toEqual(['erasures', 'retention']);
    expect(disabled({ EMBEDDINGS_WORKER: 'false' })).toEqual(['embeddings']);
    expect(disabled({ WEBHOOK_WORKER: 'true', JOBS_DISABLED: 'deliveries' })).toEqual(['deliveries']);
    expect(disabled({ PRIVACY_WORKER: 'false', JOBS_DISABLED: 'embeddings' })).toEqual(['embeddings', 'erasures', 'retention']);
  });

  it('refuses an unknown kind, and key-activity, whose counts no other instance holds', () => {
    expect(() => loadConfig({ JOBS_DISABLED: 'webhooks' })).toThrow(
      new ConfigError('Invalid configuration: JOBS_DISABLED must list kinds among deliveries, erasures, retention, embeddings'),
    );
    expect(() => loadConfig({ JOBS_DISABLED: 'key-activity' })).toThrow(
      new ConfigError(
        'Invalid configuration: JOBS_DISABLED key-activity cannot be turned off (its counts exist only on this instance); must list kinds among deliveries, erasures, retention, embeddings',
      ),
    );
  });
});
