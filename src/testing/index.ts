export type {
  MessagesRequestBody,
  RecordedRequest,
  Script,
  ScriptBlock,
  ScriptError,
  ScriptReply,
  ScriptTurn,
  ScriptUsage,
} from './script.js';
export { requestText, toolResults } from './script.js';
export type { ScriptedModel, ScriptedModelOptions } from './scripted-model.js';
export { startScriptedModel } from './scripted-model.js';
export type {
  ResponsesRequestBody,
  ScriptedResponses,
  ScriptedResponsesOptions,
} from './scripted-responses.js';
export { functionCallOutputs, startScriptedResponses, userTexts } from './scripted-responses.js';
