// Which sandbox image a run uses, and why (the run header and --dry-run say both): --sandbox-image,
// then the file's sandbox_image, then the image of the shipped agent the agent command starts
// (Claude Code, Codex or Gemini CLI: intutic/agent-sandbox:<version>[-codex|-gemini], built on first
// use like the base image), else the base image intutic/sandbox:<version>.
import { agentKindOf, type AgentKind, type Experiment } from '@intutic/experiment';
import {
  agentImageTag,
  ensureAgentImage,
  ensureCodexAgentImage,
  ensureGeminiAgentImage,
  sandboxImageTag,
  type EnsureAgentImageOptions,
  type Engine,
} from '@intutic/sandbox';

export interface ImageChoice {
  image: string;
  why: string;
}

const AGENT_NAMES: Record<AgentKind, string> = { 'claude-code': 'Claude Code', codex: 'Codex', 'gemini-cli': 'Gemini CLI' };

/** The shipped agent images of this CLI version, by the agent they hold. */
export function agentImages(version: string): Record<AgentKind, string> {
  const claude = agentImageTag(version);
  return { 'claude-code': claude, codex: `${claude}-codex`, 'gemini-cli': `${claude}-gemini` };
}

export function chooseSandboxImage(experiment: Pick<Experiment, 'agent' | 'sandbox_image'>, flag: string | undefined, version: string): ImageChoice {
  if (flag) return { image: flag, why: '--sandbox-image' };
  if (experiment.sandbox_image) return { image: experiment.sandbox_image, why: "the experiment's sandbox_image" };
  const kind = agentKindOf(experiment.agent);
  if (kind) return { image: agentImages(version)[kind], why: `the agent command starts ${AGENT_NAMES[kind]}` };
  return { image: sandboxImageTag(version, 'base'), why: 'the default: the agent command starts none of Claude Code, Codex and Gemini CLI' };
}

const ENSURE: Record<AgentKind, (engine: Engine, options: EnsureAgentImageOptions) => Promise<string>> = {
  'claude-code': ensureAgentImage,
  codex: ensureCodexAgentImage,
  'gemini-cli': ensureGeminiAgentImage,
};

/** How to build `image` when it is one of the shipped agent images, or undefined. */
export function agentImageBuilder(image: string, version: string): ((engine: Engine, options: EnsureAgentImageOptions) => Promise<string>) | undefined {
  const kind = (Object.entries(agentImages(version)) as [AgentKind, string][]).find(([, tag]) => tag === image)?.[0];
  return kind ? ENSURE[kind] : undefined;
}
