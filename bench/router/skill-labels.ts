// Training-time supervision of the skill mixture: each dataset's subject or task label (`domain`),
// mapped to one of the router's skills, so the skills carry names an operator can write a profile
// with. The router never sees these labels: they only shape what its encoder-fed mixture learns.
export const SKILLS = ['knowledge', 'reasoning', 'math', 'code', 'writing'] as const;
/**
 * The names of the free factors after the named skills: learned, with no fixed meaning (how much
 * more a prompt asks of one model than another beyond its difficulty). A declared profile may leave
 * them out (0).
 */
export function factorNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `factor-${i + 1}`);
}
export type Skill = (typeof SKILLS)[number];

const MATH_SUBJECTS = /(^|_)(algebra|mathematics|statistics|physics|chemistry|econometrics)$/;
const REASONING_SUBJECTS = /^(formal_logic|logical_fallacies|moral_scenarios)$/;
const CODE_SUBJECTS = /(computer_science|machine_learning|computer_security)$/;

const TASKS: Record<string, Skill> = {
  // llmrouter-dcrouter tasks
  mmlu: 'knowledge', natural_qa: 'knowledge', trivia_qa: 'knowledge',
  commonsense_qa: 'reasoning', openbook_qa: 'reasoning', arc_challenge: 'reasoning', 'agentverse-logicgrid': 'reasoning',
  gsm8k: 'math', math: 'math', 'agentverse-mgsm': 'math',
  mbpp: 'code', human_eval: 'code',
  commongen: 'writing',
  // MT-Bench categories
  writing: 'writing', roleplay: 'writing', reasoning: 'reasoning', coding: 'code',
  extraction: 'reasoning', stem: 'knowledge', humanities: 'knowledge',
};

/** The skill index of a training item, from its dataset and domain. */
export function skillOf(dataset: string, domain: string | undefined): number {
  let skill: Skill;
  if (dataset === 'routellm-gsm8k') skill = 'math';
  else if (dataset === 'routellm-mmlu') {
    const d = domain ?? '';
    skill = MATH_SUBJECTS.test(d) ? 'math' : REASONING_SUBJECTS.test(d) ? 'reasoning' : CODE_SUBJECTS.test(d) ? 'code' : 'knowledge';
  } else skill = TASKS[domain ?? ''] ?? 'knowledge';
  return SKILLS.indexOf(skill);
}
