// Model names, apart from the backend (which loads the SDK): help texts and budgets name them.

/** A current model from the SDK's list (not in its deprecation table; a test checks). */
export const DEFAULT_MODEL = "claude-sonnet-5-5";
