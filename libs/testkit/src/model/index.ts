// The scripted model: a stand-in for the Anthropic and OpenAI APIs that plays a script of turns.
export { startScriptedModel, type ScriptedModel, type ScriptedModelOptions, type RecordedRequest } from './server.ts';
export { parseScript, loadScript, scriptSchema, type Script, type ScriptInput, type ScriptStep, type ScriptTurn } from './script.ts';
export { playScript, resolveShellCall, type Reply, type Usage } from './play.ts';
export { readAnthropic, readChat, readResponses, historyProblem, type Conversation, type Api, type NamespacedTool } from './conversation.ts';
export { agentBin, agentsDir, agentRequirement, claudeEnv, codexConfig, type AgentName } from './agents.ts';
