// The stdio MCP proxy: `intutic mcp-proxy` and the standalone `intutic-mcp-proxy` both run runMcpProxy.
export { runMcpProxy, SHUTDOWN_GRACE_MS, type McpProxyOptions, type McpProxyDeps } from './proxy.ts';
export { parseArgs, defaultServerName, USAGE } from './args.ts';
