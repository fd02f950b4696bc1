import { compile } from 'proxy-addr';

type TrustFunction = (address: string, hop: number) => boolean;

const MAX_REMEMBERED_ADDRESSES = 1_000;

/**
 * Express's `trust proxy` setting for TRUST_PROXY. A list of addresses and ranges is compiled
 * once, as Express would, and its answer is remembered per address: proxy-addr parses the address
 * on every call, and a request asks several times (req.ip, req.protocol, the HTTPS check). The
 * answer depends on the address alone (lists take no hop count). The memory is bounded, as
 * forwarded addresses come from clients.
 */
export function trustedProxies(setting: boolean | string): boolean | TrustFunction {
  if (typeof setting === 'boolean') return setting;
  const trusts = compile(setting.split(',').map((entry) => entry.trim()));
  const answers = new Map<string, boolean>();
  return (address) => {
    let trusted = answers.get(address);
    if (trusted === undefined) {
      trusted = trusts(address, 0);
      if (answers.size >= MAX_REMEMBERED_ADDRESSES) answers.clear();
      answers.set(address, trusted);
    }
    return trusted;
  };
}
