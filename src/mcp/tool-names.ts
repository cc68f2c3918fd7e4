/**
 * The specification's six MCP tools, by name. Apart from the server so that
 * the HTTP discovery documents can name them without loading the MCP SDK.
 */
export const SPEC_TOOLS = ['healthz', 'get', 'list_matters', 'get_matter', 'advance_matter', 'file_provisional'] as const;
