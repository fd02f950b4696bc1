import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CompressedBody } from '../common/http/compressed-body';

/**
 * The dashboard's Content-Security-Policy: its scripts and styles are files of this origin (no
 * inline script, no eval, no inline <style>; React and uPlot set styles through the CSSOM, which
 * style-src does not govern), and it talks to this origin only.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface DashboardFile {
  contentType: string;
  body: CompressedBody;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The built dashboard (`npm run build`: web/dashboard -> dist/web/dashboard), read once at start. */
export class DashboardFiles {
  readonly indexHtml: CompressedBody | undefined;
  private readonly assets = new Map<string, DashboardFile>();

  constructor(directory = findBuild()) {
    if (!directory) return;
    this.indexHtml = new CompressedBody(readFileSync(path.join(directory, 'index.html')));
    const assets = path.join(directory, 'assets');
    if (!existsSync(assets)) return;
    for (const name of readdirSync(assets)) {
      const contentType = CONTENT_TYPES[path.extname(name)];
      if (contentType) this.assets.set(name, { contentType, body: new CompressedBody(readFileSync(path.join(assets, name))) });
    }
  }

  /** A built asset by its file name; names come from a fixed map, so no path from a URL reaches the disk. */
  asset(name: string): DashboardFile | undefined {
    return this.assets.get(name);
  }
}

function findBuild(): string | undefined {
  const candidates = [path.join(__dirname, '..', 'web', 'dashboard'), path.join(process.cwd(), 'dist', 'web', 'dashboard')];
  return candidates.find((directory) => existsSync(path.join(directory, 'index.html')));
}
