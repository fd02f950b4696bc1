/** How long a live stream may last and how far its reader may fall behind; the defaults are the contract's, tests shorten them. */
export interface LiveStreamOptions {
  /** A stream ends after this long (the client resumes with Last-Event-ID), so none is held for ever. */
  maxLifetimeMs: number;
  /**
   * Unsent bytes a stream may hold (in the process and its socket's send queue): a reader that falls
   * this far behind is cut off and resumes with Last-Event-ID, so readers that never read cannot grow
   * the process.
   */
  maxBacklogBytes: number;
  /** How long an ended stream's reader has to take what was sent before its connection is cut. */
  endGraceMs: number;
}

export const LIVE_STREAM_OPTIONS = Symbol('LIVE_STREAM_OPTIONS');

export const DEFAULT_LIVE_STREAM_OPTIONS: LiveStreamOptions = {
  maxLifetimeMs: 60 * 60_000,
  maxBacklogBytes: 256 * 1024,
  endGraceMs: 10_000,
};
