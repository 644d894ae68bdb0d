// Throwaway certificates for tests that talk TLS on loopback (openssl, P-256 keys, one day).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const newEcKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/**
 * A self-signed certificate with `subject` (e.g. `/CN=127.0.0.1`) and optional extension
 * `ext` (e.g. `subjectAltName=IP:127.0.0.1`): writes `dir/NAME.crt` and `dir/NAME.key`.
 */
export function selfSigned(dir: string, name: string, subject: string, ext?: string): void {
  const out = ['-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)];
  const extension = ext === undefined ? [] : ['-addext', ext];
  openssl('req', '-x509', ...newEcKey, ...out, '-days', '1', '-subj', subject, ...extension);
}

/**
 * A certificate for `subject` with extension `ext`, signed by the CA `dir/CA.crt` + `.key`
 * (made by `selfSigned`): writes `dir/NAME.crt` and `dir/NAME.key`.
 */
export function signedBy(dir: string, ca: string, name: string, subject: string, ext: string) {
  const at = (suffix: string) => join(dir, `${name}.${suffix}`);
  openssl('req', ...newEcKey, '-keyout', at('key'), '-out', at('csr'), '-subj', subject);
  writeFileSync(at('ext'), `${ext}\n`);
  const signer = [
    '-CA',
    join(dir, `${ca}.crt`),
    '-CAkey',
    join(dir, `${ca}.key`),
    '-CAcreateserial',
  ];
  openssl(
    'x509',
    '-req',
    '-in',
    at('csr'),
    ...signer,
    '-out',
    at('crt'),
    '-days',
    '1',
    '-extfile',
    at('ext'),
  );
}
