import { useState } from 'preact/hooks';

interface QuestionOption {
  label: string;
  description?: string;
}

interface Question {
  question: string;
  header?: string;
  options: QuestionOption[];
  multiSelect?: boolean;
}

function questionsOf(input: Record<string, unknown>): Question[] {
  const list = Array.isArray(input.questions) ? input.questions : [];
  return list.filter((entry): entry is Question => typeof entry?.question === 'string');
}

/** AskUserQuestion's questions with their options; a free answer is allowed too. */
export function QuestionForm(props: {
  input: Record<string, unknown>;
  busy: boolean;
  onAnswer: (answers: Record<string, string>) => void;
}) {
  const questions = questionsOf(props.input);
  const [chosen, setChosen] = useState<Record<string, string[]>>({});
  const [other, setOther] = useState<Record<string, string>>({});
  const answerOf = (question: Question) =>
    (other[question.question] ?? '').trim() || (chosen[question.question] ?? []).join(', ');
  const complete = questions.every((question) => answerOf(question) !== '');
  const toggle = (question: Question, label: string, checked: boolean) =>
    setChosen((current) => {
      const before = current[question.question] ?? [];
      const next = question.multiSelect
        ? checked
          ? [...before, label]
          : before.filter((each) => each !== label)
        : [label];
      return { ...current, [question.question]: next };
    });
  return (
    <form
      class="question-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (complete)
          props.onAnswer(
            Object.fromEntries(questions.map((question) => [question.question, answerOf(question)])),
          );
      }}
    >
      {questions.map((question, index) => (
        <fieldset key={question.question}>
          <legend>
            {question.header && <span class="chip">{question.header}</span>} {question.question}
          </legend>
          {question.options.map((option) => (
            <label key={option.label} class="option">
              <input
                type={question.multiSelect ? 'checkbox' : 'radio'}
                name={`q-${index}`}
                value={option.label}
                checked={(chosen[question.question] ?? []).includes(option.label)}
                onChange={(event) => toggle(question, option.label, event.currentTarget.checked)}
              />
              <span>{option.label}</span>
              {option.description && <span class="muted"> — {option.description}</span>}
            </label>
          ))}
          <label class="other">
            Other answer
            <input
              type="text"
              value={other[question.question] ?? ''}
              onInput={(event) => {
                const value = event.currentTarget.value;
                setOther((current) => ({ ...current, [question.question]: value }));
              }}
            />
          </label>
        </fieldset>
      ))}
      <button type="submit" disabled={props.busy || !complete}>
        Answer
      </button>
    </form>
  );
}
