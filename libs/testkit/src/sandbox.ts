// Tests that build or run the sandbox images use the same build settings, so that every suite reuses
// one image (its tag's context hash covers them): the offline base image made by
// scripts/setup/engine.sh, and this machine's CA bundle (its TLS-intercepting proxy) for apt and npm.
import { existsSync } from 'node:fs';

const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/** The environment with INTUTIC_SANDBOX_BASE_IMAGE and INTUTIC_EXTRA_CA_CERTS set for tests (kept when already set). */
export function sandboxBuildEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...env,
    INTUTIC_SANDBOX_BASE_IMAGE: env.INTUTIC_SANDBOX_BASE_IMAGE || 'local/debian:bookworm',
    INTUTIC_EXTRA_CA_CERTS: env.INTUTIC_EXTRA_CA_CERTS ?? (existsSync(HOST_CA_BUNDLE) ? HOST_CA_BUNDLE : ''),
  };
}
