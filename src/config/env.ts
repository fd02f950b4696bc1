import { accessSync, constants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { Transform, plainToInstance } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, Max, Min, MinLength, validateSync } from 'class-validator';
import { coversPublicAddresses } from '../common/validation/public-url';
import { JOB_KINDS, type JobKind, SWITCHABLE_JOB_KINDS, WORKER_SWITCHES } from './job-kinds';
import { trustedProxies } from './trusted-proxies';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const DEVELOPMENT_PEPPER = 'development-only-pepper-do-not-use-in-production';
const DEVELOPMENT_WIDGET_TOKEN_SECRET = 'development-only-widget-token-secret-do-not-use-in-production';
const PRODUCTION_TOKEN_LENGTH = 32;
const PRODUCTION_TOKEN_DISTINCT = 8;

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const toNumber = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value);
const toInteger = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

/** The environment variables the service reads, with their rules. */
class EnvironmentVariables {
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  NODE_ENV?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  DATABASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  DATA_DIR?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  REDIS_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: '$property must be at least 16 characters' })
  ADMIN_API_TOKEN?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: '$property must be at least 16 characters' })
  API_KEY_PEPPER?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  TRUST_PROXY?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  TLS_CERT_FILE?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  TLS_KEY_FILE?: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: '$property must be true or false' })
  DEMO_DATA?: boolean;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: LogLevel;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_STATEMENT_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1000)
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1000)
  RATE_LIMIT_REPLICAS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  AUTH_FAILURE_LIMIT?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  PUBLIC_KEY_RATE_LIMIT?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  WIDGET_SESSION_RATE_LIMIT?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  SIGNUP_RATE_LIMIT?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  NEW_PASSWORD_RATE_LIMIT?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_MULTIPLIER?: number;

  @IsOptional()
  @IsString()
  WEBHOOK_ALLOWED_CIDRS?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  WEBHOOK_RETRY_SCHEDULE?: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: '$property must be true or false' })
  WEBHOOK_WORKER?: boolean;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: '$property must be true or false' })
  RATE_LIMIT_DISABLED?: boolean;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: '$property must be true or false' })
  PRIVACY_WORKER?: boolean;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(36_500)
  AUDIT_RETENTION_DAYS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(3_600)
  RETENTION_CHECK_SECONDS?: number;

  @IsOptional()
  @IsString()
  JOBS_DISABLED?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: '$property must be at least 32 characters' })
  WIDGET_TOKEN_SECRET?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { message: '$property must be an http(s) URL' })
  LLM_BASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  LLM_MODEL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  LLM_API_KEY?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(120_000)
  LLM_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: '$property must be true or false' })
  LLM_REWRITE_QUESTIONS?: boolean;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { message: '$property must be an http(s) URL' })
  EMBEDDINGS_BASE_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  EMBEDDINGS_MODEL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  EMBEDDINGS_API_KEY?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(30_000)
  EMBEDDINGS_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toNumber)
  @IsNumber({}, { message: '$property must be a number between 0 and 1' })
  @Min(0)
  @Max(1)
  EMBEDDINGS_MIN_SIMILARITY?: number;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: '$property must be true or false' })
  EMBEDDINGS_WORKER?: boolean;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }, { message: '$property must be an http(s) URL' })
  PUBLIC_URL?: string;

  @IsOptional()
  @IsIn(['open', 'closed'])
  SIGNUP?: 'open' | 'closed';

  @IsOptional()
  @IsString()
  @MinLength(1)
  SMTP_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(3)
  MAIL_FROM?: string;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_MS?: number;

  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_GRACE_MS?: number;
}

export interface AppConfig {
  port: number;
  production: boolean;
  database: { kind: 'postgres'; url: string; statementTimeoutMs: number; poolSize: number } | { kind: 'embedded'; dataDir: string };
  redisUrl: string | undefined;
  adminApiToken: string | undefined;
  apiKeyPepper: string;
  trustProxy: boolean | string | undefined;
  tls: { certFile: string; keyFile: string } | undefined;
  demoData: boolean;
  logLevel: LogLevel;
  shutdown: {
    /** How long readiness is false before the listener closes, so the load balancer stops routing here. */
    drainDelayMs: number;
    /** How long in-flight requests may run after that before their connections are cut. */
    graceMs: number;
  };
  rateLimit: {
    /** Instances sharing the quota: while Redis is unreachable each enforces 1/replicas of every limit. */
    replicas: number;
    /** Missing or invalid keys allowed per client IP per minute before 429. */
    authFailuresPerMinute: number;
    /** Requests made with a public key, per client IP and minute. */
    publicKeyPerMinute: number;
    /** New widget sessions (visitor ids) per client IP and minute. */
    widgetSessionsPerMinute: number;
    /** Sign-ups (new tenants) per client IP and UTC day. */
    signUpsPerDay: number;
    /** Sign-ups, reset confirmations and invitation accepts together, per client IP and minute. */
    newPasswordsPerMinute: number;
    /** Load-testing knobs: every plan limit multiplied, or the tenant limiter switched off. */
    multiplier: number;
    disabled: boolean;
  };
  webhooks: {
    /** Private or loopback ranges (CIDR) webhook URLs may reach, over http or https. */
    allowedCidrs: readonly string[];
    /** Seconds to wait before each retry; its length is the number of retries. */
    retryScheduleSeconds: readonly number[];
  };
  /** The background work (src/jobs) this instance leaves to the others: JOBS_DISABLED and the *_WORKER switches. */
  jobs: { disabled: ReadonlySet<JobKind> };
  privacy: {
    /** Audit rows older than this many days are deleted by the retention sweep. */
    auditRetentionDays: number;
    /** How often this instance looks whether the retention sweep is due (it runs hourly, on one instance). */
    sweepCheckMs: number;
  };
  widget: {
    /** Signs visitor tokens (HMAC-SHA256); every instance needs the same one. */
    tokenSecret: string;
  };
  /**
   * The service's own origin (`https://chat.example.com`): the CSRF check and every link mailed or
   * returned. Required in production; unset (development), links use http://localhost:<PORT> and
   * the CSRF check a loopback request's own origin (src/accounts/links.ts, same-origin.guard.ts).
   */
  publicOrigin: string | undefined;
  /** Whether anyone may sign up (a new tenant on Free with its owner). */
  signupOpen: boolean;
  /** Mail for invitations and password resets; unset: links are only returned (and logged outside production). */
  mail: { smtpUrl: string; from: string } | undefined;
  /**
   * An OpenAI-compatible chat completions endpoint that writes replies; unset: extractive replies.
   * `rewriteQuestions`: the model also turns a question into search words before the search (LLM_REWRITE_QUESTIONS).
   */
  llm: { baseUrl: string; model: string; apiKey: string; timeoutMs: number; rewriteQuestions: boolean } | undefined;
  /** An OpenAI-compatible embeddings endpoint for the semantic step of the search; unset: words only. */
  embeddings: EmbeddingsConfig | undefined;
}

export interface EmbeddingsConfig {
  baseUrl: string;
  model: string;
  apiKey: string;
  /** How long an answer waits for its question's embedding before searching by words alone. */
  questionTimeoutMs: number;
  /** The cosine a passage needs to count as answering by meaning (it depends on the model). */
  minSimilarity: number;
}

export class ConfigError extends Error {}

/**
 * Reads and validates the configuration once at start. A bad value throws a ConfigError whose
 * message is one line naming the variable, so the operator knows what to fix.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const vars = plainToInstance(EnvironmentVariables, present, { excludeExtraneousValues: false });
  const [error] = validateSync(vars, { skipMissingProperties: false, whitelist: false });
  if (error) {
    // The rule declared first (a type rule before its bounds): class-validator lists it last.
    const rule = Object.values(error.constraints ?? {}).at(-1) ?? 'is invalid';
    throw new ConfigError(`Invalid configuration: ${error.property} ${rule.replace(/^\w+ /, '')}`);
  }

  const production = vars.NODE_ENV === 'production';
  if (production && !vars.API_KEY_PEPPER) {
    throw new ConfigError('Invalid configuration: API_KEY_PEPPER is required when NODE_ENV=production');
  }
  // The development values are in this public source: whoever reads it could forge what they protect.
  if (production && vars.API_KEY_PEPPER === DEVELOPMENT_PEPPER) {
    throw new ConfigError(
      'Invalid configuration: API_KEY_PEPPER must not be the built-in development value when NODE_ENV=production (e.g. openssl rand -hex 32)',
    );
  }
  if (production && vars.WIDGET_TOKEN_SECRET === DEVELOPMENT_WIDGET_TOKEN_SECRET) {
    throw new ConfigError(
      'Invalid configuration: WIDGET_TOKEN_SECRET must not be the built-in development value when NODE_ENV=production (e.g. openssl rand -hex 32)',
    );
  }
  if (Boolean(vars.TLS_CERT_FILE) !== Boolean(vars.TLS_KEY_FILE)) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  for (const name of ['TLS_CERT_FILE', 'TLS_KEY_FILE'] as const) {
    const file = vars[name];
    if (file && !isReadableFile(file)) throw new ConfigError(`Invalid configuration: ${name} is not a readable file`);
  }
  if (vars.NODE_ENV && !production && vars.NODE_ENV.trim().toLowerCase() === 'production') {
    throw new ConfigError('Invalid configuration: NODE_ENV must be exactly production (lower case, no spaces) to turn on production mode');
  }
  if (vars.DATABASE_URL && !hasProtocol(vars.DATABASE_URL, ['postgres:', 'postgresql:'])) {
    throw new ConfigError('Invalid configuration: DATABASE_URL must be a postgresql:// connection string');
  }
  if (vars.REDIS_URL && !isRedisUrl(vars.REDIS_URL)) {
    throw new ConfigError('Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL with a host (and an optional numeric database)');
  }
  if (!vars.DATABASE_URL && vars.DATA_DIR && !isDirectoryOrAbsent(vars.DATA_DIR)) {
    throw new ConfigError('Invalid configuration: DATA_DIR must be a directory (or a path where one can be created)');
  }
  if (production && vars.ADMIN_API_TOKEN && !isStrongToken(vars.ADMIN_API_TOKEN)) {
    throw new ConfigError(
      `Invalid configuration: ADMIN_API_TOKEN must be at least ${PRODUCTION_TOKEN_LENGTH} characters with at least ${PRODUCTION_TOKEN_DISTINCT} distinct characters when NODE_ENV=production`,
    );
  }
  if (production && vars.ADMIN_API_TOKEN && repeatsAPattern(vars.ADMIN_API_TOKEN)) {
    throw new ConfigError('Invalid configuration: ADMIN_API_TOKEN must not repeat a shorter pattern when NODE_ENV=production (e.g. openssl rand -hex 32)');
  }
  if (production && vars.TRUST_PROXY && trustsEveryone(vars.TRUST_PROXY)) {
    throw new ConfigError(
      'Invalid configuration: TRUST_PROXY must not trust every address when NODE_ENV=production; list the proxies as CIDR ranges or loopback/linklocal/uniquelocal',
    );
  }
  const llmVars = [vars.LLM_BASE_URL, vars.LLM_MODEL, vars.LLM_API_KEY];
  if (llmVars.some(Boolean) && !llmVars.every(Boolean)) {
    const missing = ['LLM_BASE_URL', 'LLM_MODEL', 'LLM_API_KEY'].filter((_, i) => !llmVars[i]);
    throw new ConfigError(`Invalid configuration: ${missing.join(' and ')} must be set too: LLM_BASE_URL, LLM_MODEL and LLM_API_KEY go together`);
  }
  const embeddingVars = [vars.EMBEDDINGS_BASE_URL, vars.EMBEDDINGS_MODEL, vars.EMBEDDINGS_API_KEY];
  if (embeddingVars.some(Boolean) && !embeddingVars.every(Boolean)) {
    const missing = ['EMBEDDINGS_BASE_URL', 'EMBEDDINGS_MODEL', 'EMBEDDINGS_API_KEY'].filter((_, i) => !embeddingVars[i]);
    throw new ConfigError(
      `Invalid configuration: ${missing.join(' and ')} must be set too: EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL and EMBEDDINGS_API_KEY go together`,
    );
  }
  if (vars.SMTP_URL && !hasProtocol(vars.SMTP_URL, ['smtp:', 'smtps:'])) {
    throw new ConfigError('Invalid configuration: SMTP_URL must be an smtp:// or smtps:// URL');
  }
  if (production && !vars.WIDGET_TOKEN_SECRET) {
    throw new ConfigError('Invalid configuration: WIDGET_TOKEN_SECRET is required when NODE_ENV=production');
  }
  // Mailed links are built on it (a request's Host is the sender's to choose), and the CSRF
  // check compares Origin with it.
  if (production && !vars.PUBLIC_URL) {
    throw new ConfigError('Invalid configuration: PUBLIC_URL is required when NODE_ENV=production (the origin users reach, e.g. https://chat.example.com)');
  }

  return {
    port: vars.PORT ?? 3000,
    production,
    database: vars.DATABASE_URL
      ? {
          kind: 'postgres',
          url: vars.DATABASE_URL,
          statementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS ?? 5000,
          poolSize: vars.DATABASE_POOL_SIZE ?? 10,
        }
      : { kind: 'embedded', dataDir: vars.DATA_DIR ?? './data' },
    redisUrl: vars.REDIS_URL,
    adminApiToken: vars.ADMIN_API_TOKEN,
    apiKeyPepper: vars.API_KEY_PEPPER ?? DEVELOPMENT_PEPPER,
    trustProxy: parseTrustProxy(vars.TRUST_PROXY),
    tls: vars.TLS_CERT_FILE && vars.TLS_KEY_FILE ? { certFile: vars.TLS_CERT_FILE, keyFile: vars.TLS_KEY_FILE } : undefined,
    demoData: !production && (vars.DEMO_DATA ?? true),
    logLevel: vars.LOG_LEVEL ?? 'info',
    shutdown: { drainDelayMs: vars.SHUTDOWN_DRAIN_MS ?? (production ? 5_000 : 0), graceMs: vars.SHUTDOWN_GRACE_MS ?? 10_000 },
    rateLimit: {
      replicas: vars.RATE_LIMIT_REPLICAS ?? 1,
      authFailuresPerMinute: vars.AUTH_FAILURE_LIMIT ?? 20,
      publicKeyPerMinute: vars.PUBLIC_KEY_RATE_LIMIT ?? 60,
      widgetSessionsPerMinute: vars.WIDGET_SESSION_RATE_LIMIT ?? 10,
      signUpsPerDay: vars.SIGNUP_RATE_LIMIT ?? 5,
      newPasswordsPerMinute: vars.NEW_PASSWORD_RATE_LIMIT ?? 10,
      multiplier: vars.RATE_LIMIT_MULTIPLIER ?? 1,
      disabled: vars.RATE_LIMIT_DISABLED ?? false,
    },
    webhooks: {
      allowedCidrs: parseCidrList(vars.WEBHOOK_ALLOWED_CIDRS),
      retryScheduleSeconds: parseRetrySchedule(vars.WEBHOOK_RETRY_SCHEDULE),
    },
    jobs: { disabled: disabledJobs(vars) },
    privacy: {
      auditRetentionDays: vars.AUDIT_RETENTION_DAYS ?? 365,
      sweepCheckMs: (vars.RETENTION_CHECK_SECONDS ?? 60) * 1000,
    },
    widget: { tokenSecret: vars.WIDGET_TOKEN_SECRET ?? DEVELOPMENT_WIDGET_TOKEN_SECRET },
    publicOrigin: vars.PUBLIC_URL ? new URL(vars.PUBLIC_URL).origin : undefined,
    signupOpen: (vars.SIGNUP ?? 'open') === 'open',
    mail: vars.SMTP_URL ? { smtpUrl: vars.SMTP_URL, from: vars.MAIL_FROM ?? 'Chatbot Platform <no-reply@localhost>' } : undefined,
    llm:
      vars.LLM_BASE_URL && vars.LLM_MODEL && vars.LLM_API_KEY
        ? {
            baseUrl: vars.LLM_BASE_URL.replace(/\/+$/, ''),
            model: vars.LLM_MODEL,
            apiKey: vars.LLM_API_KEY,
            timeoutMs: vars.LLM_TIMEOUT_MS ?? 20_000,
            rewriteQuestions: vars.LLM_REWRITE_QUESTIONS ?? false,
          }
        : undefined,
    embeddings:
      vars.EMBEDDINGS_BASE_URL && vars.EMBEDDINGS_MODEL && vars.EMBEDDINGS_API_KEY
        ? {
            baseUrl: vars.EMBEDDINGS_BASE_URL.replace(/\/+$/, ''),
            model: vars.EMBEDDINGS_MODEL,
            apiKey: vars.EMBEDDINGS_API_KEY,
            questionTimeoutMs: vars.EMBEDDINGS_TIMEOUT_MS ?? 2000,
            minSimilarity: vars.EMBEDDINGS_MIN_SIMILARITY ?? 0.4,
          }
        : undefined,
  };
}

/** API_DECISIONS, Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

/**
 * The kinds this instance does not run: those JOBS_DISABLED names (comma-separated), and those of
 * a *_WORKER switch set to false. Either switch off turns a kind off.
 */
function disabledJobs(vars: EnvironmentVariables): Set<JobKind> {
  const named = (vars.JOBS_DISABLED ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of named) {
    if (!(SWITCHABLE_JOB_KINDS as readonly string[]).includes(name)) {
      const known = (JOB_KINDS as readonly string[]).includes(name) ? `${name} cannot be turned off (its counts exist only on this instance); ` : '';
      throw new ConfigError(`Invalid configuration: JOBS_DISABLED ${known}must list kinds among ${SWITCHABLE_JOB_KINDS.join(', ')}`);
    }
  }
  const disabled = new Set(named as JobKind[]);
  for (const [variable, kinds] of Object.entries(WORKER_SWITCHES)) {
    if (vars[variable as keyof typeof WORKER_SWITCHES] === false) for (const kind of kinds) disabled.add(kind);
  }
  return disabled;
}

function parseRetrySchedule(value: string | undefined): number[] {
  if (value === undefined) return DEFAULT_RETRY_SCHEDULE;
  const seconds = value.split(',').map((entry) => entry.trim());
  if (!seconds.every((entry) => /^\d{1,6}(\.\d{1,3})?$/.test(entry)) || seconds.length > 50) {
    throw new ConfigError('Invalid configuration: WEBHOOK_RETRY_SCHEDULE must be up to 50 numbers of seconds separated by commas, e.g. 5,300,1800');
  }
  return seconds.map(Number);
}

function parseCidrList(value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = Number(prefix);
    if (rest.length || family === 0 || !/^\d{1,3}$/.test(prefix ?? '') || bits > (family === 4 ? 32 : 128)) {
      throw new ConfigError('Invalid configuration: WEBHOOK_ALLOWED_CIDRS must be CIDR ranges separated by commas, e.g. 127.0.0.1/32,10.0.0.0/8');
    }
  }
  return entries;
}

/** Parsed as WHATWG URLs: a value that fails here would fail later in the client, with a stack trace. */
function parseUrl(value: string): URL | undefined {
  return URL.canParse(value) ? new URL(value) : undefined;
}

function hasProtocol(value: string, protocols: string[]): boolean {
  const url = parseUrl(value);
  return url !== undefined && protocols.includes(url.protocol);
}

function isRedisUrl(value: string): boolean {
  const url = parseUrl(value);
  return url !== undefined && (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' && /^(\/\d*)?$/.test(url.pathname);
}

function isStrongToken(token: string): boolean {
  return token.length >= PRODUCTION_TOKEN_LENGTH && new Set(token).size >= PRODUCTION_TOKEN_DISTINCT;
}

/**
 * Whether the token is a shorter pattern repeated (`abcdefgh` four times, or with a partial last
 * copy): its strength is the pattern's, not its length's.
 */
function repeatsAPattern(token: string): boolean {
  for (let period = 1; period <= token.length / 2; period++) {
    let repeats = true;
    for (let i = period; i < token.length && repeats; i++) repeats = token[i] === token[i - period];
    if (repeats) return true;
  }
  return false;
}

function isDirectoryOrAbsent(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** `true`, or a range of prefix length 0, makes every client's X-Forwarded-For trusted. */
function trustsEveryone(value: boolean | string): boolean {
  if (typeof value === 'boolean') return value;
  return value === 'true' || value.split(',').some((entry) => /\/0+$/.test(entry.trim()));
}

/**
 * Settings that are allowed but unsafe, to be logged once at start: trusting every proxy outside
 * production (where it is refused), and, in every mode, ranges of public addresses where only
 * private ones are expected (a typo such as 10.0.0.0/0, or a public proxy list).
 */
export function configWarnings(config: Pick<AppConfig, 'production' | 'trustProxy' | 'webhooks'>): string[] {
  const warnings: string[] = [];
  if (!config.production && config.trustProxy !== undefined && trustsEveryone(config.trustProxy)) {
    warnings.push(
      'TRUST_PROXY trusts every address: any client can set X-Forwarded-For and X-Forwarded-Proto. List the proxies instead, as CIDR ranges or loopback/uniquelocal (this is refused when NODE_ENV=production).',
    );
  } else if (typeof config.trustProxy === 'string') {
    const publicEntries = config.trustProxy
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => coversPublicAddresses(withPrefixLength(entry)));
    if (publicEntries.length) {
      warnings.push(
        `TRUST_PROXY covers public addresses (${publicEntries.join(', ')}): a client there can set X-Forwarded-For and X-Forwarded-Proto. Trust only your load balancers' addresses.`,
      );
    }
  }
  const publicCidrs = config.webhooks.allowedCidrs.filter(coversPublicAddresses);
  if (publicCidrs.length) {
    warnings.push(
      `WEBHOOK_ALLOWED_CIDRS covers public addresses (${publicCidrs.join(', ')}): it is meant for private or loopback ranges; public receivers need no entry and must use https.`,
    );
  }
  return warnings;
}

/** A TRUST_PROXY entry with a netmask (`10.0.0.0/255.0.0.0`, proxy-addr's other form) as a prefix length. */
function withPrefixLength(entry: string): string {
  const [address, mask] = entry.split('/');
  if (mask === undefined || isIP(mask) !== 4) return entry;
  const bits = mask.split('.').reduce((count, octet) => count + (Number(octet) >>> 0).toString(2).replaceAll('0', '').length, 0);
  return `${address}/${bits}`;
}

function isReadableFile(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function parseTrustProxy(value: string | undefined): boolean | string | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  try {
    // Compiled here as the app will compile it (trustedProxies), so a bad entry is one line at start.
    trustedProxies(value);
  } catch {
    throw new ConfigError(
      'Invalid configuration: TRUST_PROXY must be true, false, or a comma-separated list of addresses, CIDR ranges and loopback/linklocal/uniquelocal',
    );
  }
  return value;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
