// The governance proxy (`intutic start`, and each repetition's standalone proxy).
export { startProxy, type ProxyOptions, type RunningProxy } from './server.ts';
export { createCertificateAuthority, type CertificateAuthority } from './egress/ca.ts';
export { keySwapsFromEnv, standInEnvName, PROVIDER_KEY_ENV, type KeySwap, type KeySwaps } from './llm/keys.ts';
export { loadPlanFile, parseHostOverrides, parseUpstream, DEFAULT_UPSTREAMS } from './config.ts';
export { createLogger, memoryLogger, type Logger } from './log.ts';
export { loadPriceTable, parsePriceTable, PriceTable, type TokenUsage, type Cost } from './llm/pricing.ts';
export { policyFrom, loadLocalPolicy, type LocalPolicy } from './policy.ts';
