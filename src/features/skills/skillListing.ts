import type { Skill } from './contract';

export interface SkillListingText {
  /** `- name: description` lines, then the footer line when any description was shortened. */
  readonly text: string;
  /** Skills whose description is not shown whole. */
  readonly shortened: number;
}

/** The first sentence: up to the first `.`, `!` or `?` followed by a space (or the whole text). */
export function firstSentence(text: string): string {
  const match = /^.*?[.!?](?=\s|$)/.exec(text);
  return match ? match[0] : text;
}

/** Cuts to at most `max` characters, at a word boundary when one is near, marked with `…`. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…';
  const hard = text.slice(0, max - 1);
  const space = hard.lastIndexOf(' ');
  return `${(space >= hard.length * 0.6 ? hard.slice(0, space) : hard).trimEnd()}…`;
}

export function listingFooter(shortened: number): string {
  return `${shortened} skill${shortened === 1 ? '' : 's'} listed briefly; Skill({query:"…"}) searches them.`;
}

const render = (skills: readonly Skill[], descriptions: readonly string[]) => skills.map((s, i) => (descriptions[i] === '' ? `- ${s.name}` : `- ${s.name}: ${descriptions[i]}`)).join('\n');

/**
 * Every model-invocable skill as `- name: description` within `budget` characters. Over budget,
 * descriptions shrink to their first sentence, then all to one common length (the longest ones
 * lose the most); a skill is never left out, so the listing exceeds the budget only when the
 * names alone do.
 */
export function formatSkillListing(all: readonly Skill[], budget: number): SkillListingText {
  const skills = all.filter((s) => !s.disableModelInvocation);
  const full = skills.map((s) => s.description);
  const whole = render(skills, full);
  if (whole.length <= budget) return { text: whole, shortened: 0 };
  const footerRoom = listingFooter(skills.length).length + 1;
  const sentences = full.map(firstSentence);
  const countShortened = (shown: readonly string[]) => shown.filter((d, i) => d !== full[i]).length;
  const brief = render(skills, sentences);
  if (brief.length + footerRoom <= budget) {
    const shortened = countShortened(sentences);
    return { text: `${brief}\n${listingFooter(shortened)}`, shortened };
  }
  // `- name: ` per skill, the newlines and the footer are fixed; the rest is shared by the descriptions.
  const fixed = skills.reduce((sum, s) => sum + s.name.length + 4, 0) + skills.length - 1 + footerRoom;
  const room = budget - fixed;
  let low = 0;
  let high = Math.max(0, ...sentences.map((d) => d.length));
  // The largest common length whose cut descriptions fit the room.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (sentences.reduce((sum, d) => sum + Math.min(d.length, mid), 0) <= room) low = mid;
    else high = mid - 1;
  }
  const shown = sentences.map((d) => (low < 8 ? '' : cut(d, low)));
  const shortened = countShortened(shown);
  return { text: `${render(skills, shown)}\n${listingFooter(shortened)}`, shortened };
}
