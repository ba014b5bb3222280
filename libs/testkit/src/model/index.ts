// The scripted model: a stand-in for the Anthropic, OpenAI and Gemini APIs that plays a script of turns.
export { startScriptedModel, type ScriptChoice, type ScriptedModel, type ScriptedModelOptions, type RecordedRequest } from './server.ts';
export { parseScript, loadScript, scriptSchema, type Script, type ScriptInput, type ScriptStep, type ScriptTurn } from './script.ts';
export { playScript, plainestValue, resolveNamedCall, resolveShellCall, type Reply, type Usage } from './play.ts';
export { readAnthropic, readChat, readGemini, readResponses, historyProblem, type Conversation, type Api, type NamespacedTool } from './conversation.ts';
export { agentBin, agentsDir, agentRequirement, claudeEnv, codexConfig, geminiEnv, geminiSettings, writeGeminiSettings, type AgentName } from './agents.ts';
export { geminiErrorBody, SKIP_THOUGHT_SIGNATURE } from './wire-gemini.ts';
