import { readFileSync } from 'node:fs';

/**
 * The OpenAPI document's prose: its introduction and one explanation per tag, written as Markdown
 * files under docs/api/ (docs/api/README.md lists the tags in groups, in the order Swagger UI shows
 * them, and says how the files are laid out). Read once, when this module is loaded. Rules of one
 * operation or field live beside it, in its route or schema.
 *
 * The folder is found at the same place relative to this file in the sources (src/http under tsx)
 * and in the build (dist/src/http), because scripts/build.mjs copies docs/api to dist/docs/api:
 * dist/ is all a deployment runs, the container image among them.
 */
const docsDir = new URL('../../docs/api/', import.meta.url);

export interface TagGroup {
  name: string;
  tags: { name: string; description: string }[];
}

/** A file's text without its first line, the `# <title>` heading, which it must have. */
function readDoc(file: string): { title: string; text: string } {
  const source = readFileSync(new URL(file, docsDir), 'utf8');
  const [first = '', ...rest] = source.split('\n');
  const title = /^# (.+)$/.exec(first)?.[1]?.trim();
  if (!title) throw new Error(`docs/api/${file}: the first line must be a "# <title>" heading`);
  return { title, text: rest.join('\n').trim() };
}

/** docs/api/README.md: each `## ` heading a group, each `- [<tag name>](<file>.md)` item under it a tag. */
function readTagGroups(): TagGroup[] {
  const groups: TagGroup[] = [];
  for (const line of readFileSync(new URL('README.md', docsDir), 'utf8').split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) groups.push({ name: heading[1]!.trim(), tags: [] });
    const item = /^- \[([^\]]+)\]\(([^)]+\.md)\)$/.exec(line);
    const group = groups.at(-1);
    if (!item || !group) continue;
    const [name, file] = [item[1]!, item[2]!];
    const { title, text } = readDoc(file);
    if (title !== name) throw new Error(`docs/api/${file} is titled "${title}", but README.md lists it as "${name}"`);
    group.tags.push({ name, description: text });
  }
  if (groups.length === 0 || groups.some((group) => group.tags.length === 0))
    throw new Error('docs/api/README.md: every "## " group must list its tags as "- [<name>](<file>.md)"');
  return groups;
}

/** The document's description (`info.description`): the conventions every call shares. */
export const description = readDoc('introduction.md').text;

/** The groups (`x-tagGroups`, which Redoc and Scalar show as sections); the tag list is the groups in order. */
export const tagGroups: TagGroup[] = readTagGroups();

/** The top-level `tags` list: every group's tags, in order. */
export const tags = tagGroups.flatMap((group) => group.tags);
