"""Texts the demo tasks carry: metadata policies, the domain details, personas.

The rules match the benchmark's task metadata; the wording is this project's. Lines that fix
"today" use the real rows' exact phrasing for each task type.
"""

from __future__ import annotations

DOMAIN_DETAILS = """# Domain Details
## Quarters of the Year
- Q1: January 1 to March 31 (both inclusive).
- Q2: April 1 to June 30 (both inclusive).
- Q3: July 1 to September 30 (both inclusive).
- Q4: October 1 to December 31 (both inclusive).
## Seasons
- Spring: March 1 to May 31 (both inclusive).
- Summer: June 1 to August 31 (both inclusive).
- Autumn/Fall: September 1 to November 30 (both inclusive).
- Winter (of a year Y): December 1 of Y to the end of February of Y+1 (both inclusive); the year is named to avoid ambiguity.
## Time Periods
- Past N quarters: starts 3*N months before the `end_date` (today unless stated) and ends on the `end_date`; e.g. the past 2 quarters are the six months up to and including today.
- Past N months / weeks / days: starts N months / 7*N days / N days before the `end_date` and ends on it.
- Dates of records are compared by calendar day (UTC).
- Significantly more cases in a month: a month whose number of cases is larger than that of every other month in the period."""

HANDLE_TIME = """## Handle Time Policy
- Definition: handle time is how long it takes to close a case, from the moment the case is opened until it is closed.
- When a query restricts agents to those who handled/managed more than x cases, a case counts for the agent it was first assigned to and for every agent it was transferred to. An agent with 2 cases first assigned to them and 1 case transferred to them has handled 3 cases.
- Handle time is only computed for cases that were never transferred to another agent.
- A case that was not transferred has exactly ONE 'Owner Assignment' history record; a transferred case has MORE THAN ONE 'Owner Assignment'.

## Today's date: {today}"""

TRANSFER_COUNT = """## Transfer Count Policy
- Definition: the number of times a case was reassigned from one agent to another. Each transfer from agent A to agent B adds one to agent A's transfer count.
- When a query restricts agents to those who handled/managed more than x cases, a case counts for the agent it was first assigned to and for every agent it was transferred to. An agent with 2 cases first assigned to them and 1 case transferred to them has handled 3 cases.
- A case that was not transferred has exactly ONE 'Owner Assignment' history record; a transferred case has MORE THAN ONE 'Owner Assignment'.

## Today's date: {today}"""

TODAY_DASH = "- Today's date: {today}"

CASE_ROUTING = """## Case Routing Policy
The case routing policy picks the agent best suited to a new case, using these criteria in order:
- Issue Expertise: the agent who has closed the most cases of the issue most similar to the new case.
- Product Expertise: if agents tie on issue expertise, the one who has solved (closed) the most cases about the product most relevant to the new case.
- Workload: if they still tie, the one with the fewest cases whose Status is not 'Closed'.
"""

CONVERSION_RATE = """
        ## Conversion Rate Policy
        - Definition: the conversion rate is the share of an agent's leads that converted within a given period.
        - Calculation Method: take the leads created within the date range and count how many of them were converted within that same range.
        - Formula: Conversion Rate = (Number of Converted Leads / Total Leads) × 100%
        - Comparison: between agents, a higher conversion rate means the agent converts leads more effectively.

        ## Today's date: {today}
        """

SALES_AMOUNT = """
        ## Sales Amount Policy
        - Definition: the sales amount of an order is the sum over its order items of quantity times unit price (Quantity * UnitPrice on the order's items). An opportunity counts when the contract linked to it was signed by the company (CompanySignedDate) within the period of interest; its sales are those of the orders placed under that contract.

        - Today's date: {today}"""

SALES_CYCLE = """
        ## Sales Cycle Policy
        - Definition: the sales cycle is the number of days from an opportunity's creation date to the company signed date of its contract.

        ## Today's date: {today}
        """

LEAD_ROUTING = """
        ## Lead Routing Policy
        The lead routing policy picks the agent best suited to a new lead, using these criteria in order:
        - Territory Match: find the territory covering the lead's region by comparing it with each territory's description (a comma-separated list of states/regions).
        - Quote Success: among the agents assigned to that territory, keep those with the most quotes whose status is "Accepted" (a quote belongs to the owner of its opportunity).
        - Workload Balance: if agents still tie, choose the one with the fewest unconverted (open) leads.

        ## Lead's region: {state}
        """

LEAD_QUALIFICATION = """
        ## Lead qualification guide.
        Read the voice call transcripts with the lead and the relevant knowledge articles to decide the lead qualification.

        - Lead Id to be considered is: {lead}
        """

WRONG_STAGE = "- Opportunity Id to be considered is: {opp}"

ACTIVITY_PRIORITY = """
        ## Activity priority guide.
        Every opportunity stage has its own kind of work. The lists below show typical tasks of each stage.

        Qualification: decide whether the prospect could become a customer.
            - Researching the prospect's background.
            - Sending introductory emails or making first contact calls.
            - Scheduling discovery meetings to learn about the customer's needs.
            - Holding initial prospecting meetings or calls.
            - Meeting prospects at networking events or trade shows.
            - etc

        Discovery: understand the prospect's situation in depth to shape the solution.
            - Researching the prospect's industry, company and competitors.
            - Gathering the prospect's pain points and business objectives.
            - Talking with the prospect about their specific needs and requirements.
            - Identifying how our solutions align, ahead of the value proposition.
            - etc

        Quote:
            - Following up on first contact to set up detailed discussions.
            - Preparing tailored proposals based on the customer's needs.
            - Running needs analysis meetings and presentations.
            - Organizing product demos or trials.
            - Sending case studies or testimonials that support the value proposition.

        Negotiation:
            - Holding negotiation meetings on terms and pricing.
            - Following up on proposals and answering objections.
            - Coordinating with internal teams (legal, finance) to finalize terms.
            - Preparing contracts for review and approval.
            - etc

        Closed:
            - Post-sale follow-ups such as onboarding or hand-offs to account teams.
            - Win/loss analysis of the deal.
            - Recording the finalized contract details.
            - Internal reviews of key learnings from the deal.
            - Kick-off meetings or implementation for won deals.
            - Upsell or cross-sell offers to the customer.
            - Nurturing campaigns for future opportunities.
            - etc

        - Opportunity Id to be considered is: {opp}
        """

SALES_INSIGHT = """
        ## Sales Insight Mining
        Sales insight mining extracts insights from sales conversations to help the sales team improve.
        Analyze the conversations stored in the VoiceCallTranscript__c object.
        """

QUOTE_APPROVAL = """
        ## Quote approval guide.
        Find the relevant knowledge articles to justify the quote approval.

        - Quote Id to be considered is: {quote}
        """

INVALID_CONFIG = """
        ## Invalid config guide.
        Find the relevant knowledge articles to justify the invalid configuration.

        - Quote Id to be considered is: {quote}
        """

POLICY_VIOLATION = "- Case Id to be considered is: {case}"
KNOWLEDGE_QA = "- Use the information retrieved from the knowledge articles to answer the question in a concise manner"
NAMED_ENTITY = "- Contact Id interacting: {contact}\n- Today's date: {today}"
PRIVATE_CUSTOMER = """
        The customer you are interacting with is logged in as Id: {contact}.
        """

INTERNAL_PERSONAS = (
    "You are results-oriented and quick, keen on hitting targets with as little friction as possible.",
    "You are meticulous and orderly, preferring documented processes and careful checks.",
    "You are a data-minded manager who trusts numbers over anecdotes.",
    "You are collaborative and like to hear every stakeholder before deciding.",
    "You are cautious about risk and weigh the downsides before any change.",
    "You are impatient with long explanations and want the bottom line first.",
    "You are curious and ask follow-up questions until you understand the reasoning.",
    "You are budget-conscious and look for waste in every process.",
    "You are focused on customers and judge every decision by its effect on them.",
    "You are a new team lead, still learning the CRM, and you ask for clarifications politely.",
    "You are a seasoned operations director who speaks tersely and expects precise answers.",
    "You are working against a deadline and want answers fast.",
    "You are accountable by nature and follow every task through to the end.",
    "You are pragmatic and flexible, comfortable with priorities that change.",
    "You are a long-term planner who thinks about the broader consequences of decisions.",
    "You are enthusiastic about new tools and like to understand how answers were found.",
)

EXTERNAL_PERSONAS = (
    "You are a busy customer who wants a quick fix with little effort.",
    "You are a first-time buyer who does not know the product category well.",
    "You are a demanding customer with high expectations for quality and service.",
    "You are a careful shopper who compares options in detail before buying.",
    "You are an IT manager in charge of rolling out new systems at your company.",
    "You are an executive who wants clear value for the money and little detail.",
    "You are a friendly, chatty customer who shares more context than needed.",
    "You are a frustrated customer whose earlier request was not resolved.",
    "You are a technically savvy customer who reads specifications closely.",
    "You are a polite customer who writes short, formal messages.",
    "You are a price-sensitive customer looking for the best deal.",
    "You are a procurement officer who needs exact facts for a report.",
)
