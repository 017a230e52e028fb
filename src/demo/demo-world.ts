import type { FakeTaigaData } from "./fake-taiga-data.js";

// What `npm run demo-tracker` starts with: made-up people, projects and tickets, enough to see
// every state of the editor's tracker panel (open, in progress, closed, assigned or not, a story
// with tasks, a project one user may not see).

/** A demo account as the script prints it. */
export interface DemoAccount {
  username: string;
  password: string;
  projects: string[];
}

/** The project the sample document links. */
export const DEMO_PROJECT = "demo-folio";

/** A document that links the demo project's tickets, to paste into the editor. */
export const SAMPLE_DOCUMENT = `&tracker.${DEMO_PROJECT}
Release 1.0
  [ ] Sign-in page #US-1
    [ ] Write the form #T-2
    [ ] Check the password rules #T-3
  [ ] Export to Markdown #US-4
  Print view #US-5
  A new idea: put the cursor on this line and press "Create story"`;

/** Seeds `data` and returns the accounts, in the order to print them. */
export function seedDemoWorld(data: FakeTaigaData): DemoAccount[] {
  const alice = data.addUser({ username: "alice", password: "alice-demo", fullName: "Alice Liddell" });
  const bob = data.addUser({ username: "bob", password: "bob-demo", fullName: "Bob Builder" });
  const carol = data.addUser({ username: "carol", password: "carol-demo", fullName: "Carol Danvers" });

  const folio = data.addProject({ name: "Folio demo", slug: DEMO_PROJECT, members: [alice, bob] });
  const [, storyInProgress, storyDone] = folio.statuses.userstories;
  const [, , taskClosed] = folio.statuses.tasks;
  const signIn = data.addStory({ project: folio, subject: "Sign-in page", status: storyInProgress, assignedTo: bob });
  data.addTask({ project: folio, subject: "Write the form", userStory: signIn, assignedTo: bob });
  data.addTask({ project: folio, subject: "Check the password rules", userStory: signIn, status: taskClosed, assignedTo: alice });
  data.addStory({ project: folio, subject: "Export to Markdown" });
  data.addStory({ project: folio, subject: "Print view", status: storyDone, assignedTo: alice });

  const website = data.addProject({ name: "Website relaunch", slug: "demo-website", members: [alice, carol] });
  const landing = data.addStory({ project: website, subject: "New landing page", assignedTo: carol });
  data.addTask({ project: website, subject: "Pick the photos", userStory: landing });

  return [
    { username: alice.username, password: alice.password, projects: [folio.slug, website.slug] },
    { username: bob.username, password: bob.password, projects: [folio.slug] },
    { username: carol.username, password: carol.password, projects: [website.slug] },
  ];
}
