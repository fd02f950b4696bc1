import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Request, Response } from 'express';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Below this a compressed body saves less than its headers cost. */
const WORTH_COMPRESSING_BYTES = 1_024;

/**
 * A static body (a built script, style sheet or page) sent compressed to clients that accept it:
 * brotli, else gzip, else as it is. Each encoding is made once, at its first request, at the
 * highest level (the body never changes while the process runs), on libuv's thread pool: brotli's
 * best level takes about half a second for the dashboard's main script, which must not stall the
 * event loop. The API's JSON is not compressed here (small, and a proxy in front may do it).
 */
export class CompressedBody {
  private brotli?: Promise<Buffer>;
  private gzip?: Promise<Buffer>;

  constructor(readonly identity: Buffer) {}

  async send(request: Request, response: Response): Promise<void> {
    response.vary('Accept-Encoding');
    if (this.identity.length < WORTH_COMPRESSING_BYTES) return void response.send(this.identity);
    // Brotli whenever it is accepted at all: browsers list gzip first with equal weights, and
    // brotli's copy is smaller.
    if (request.acceptsEncodings('br')) {
      this.brotli ??= brotliAsync(this.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } });
      const body = await this.brotli;
      response.setHeader('Content-Encoding', 'br');
      response.send(body);
    } else if (request.acceptsEncodings('gzip')) {
      this.gzip ??= gzipAsync(this.identity, { level: constants.Z_BEST_COMPRESSION });
      const body = await this.gzip;
      response.setHeader('Content-Encoding', 'gzip');
      response.send(body);
    } else {
      response.send(this.identity);
    }
  }
}
